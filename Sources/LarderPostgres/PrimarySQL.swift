#if Extras
/// The SQL a replica sends its primary, for the tables of one prefix.
///
/// It keeps to what PostgreSQL-compatible engines also take: `text`, `bytea`, `bigint`,
/// `boolean`, `unnest` of arrays, `INSERT … ON CONFLICT`, data-modifying `WITH`, serializable
/// transactions; no extension, no advisory lock. `pg_notify` is the one PostgreSQL function,
/// left out when the configuration says the engine has no LISTEN/NOTIFY
/// (``PrimaryConfiguration/notifies``); replicas then learn of commits by polling.
///
/// One stored procedure, ``commitProcedure``, makes a batch of commits in one round trip where
/// the engine has procedures that end transactions (PostgreSQL 11 and later); where it cannot be
/// made, the replica commits one commit at a time with ``commit(_:bind:)`` inside `BEGIN` …
/// `COMMIT` (three round trips each).
struct PrimarySQL {
    let head: String
    let objects: String
    let log: String
    let writes: String
    /// The LISTEN/NOTIFY channel that tells replicas of a commit.
    let channel: String
    /// Whether commits NOTIFY the channel.
    let notifies: Bool

    /// The commit procedure (``commitProcedure``); the version in its name changes whenever its
    /// text does, so that replicas of several Larder versions each find their own.
    let procedure: String

    init(prefix: String, notifies: Bool = true) {
        self.notifies = notifies
        procedure = "\(prefix)_commit_v2\(notifies ? "" : "_quiet")"
        head = "\(prefix)_head"
        objects = "\(prefix)_objects"
        log = "\(prefix)_log"
        writes = "\(prefix)_writes"
        channel = "\(prefix)_commits"
    }

    /// The tables, made when missing. `head` is one row: the primary's identity, the number of
    /// its last commit, and the first commit its log still holds.
    var schema: [String] {
        [
            "CREATE TABLE IF NOT EXISTS \(head) (id integer PRIMARY KEY CHECK (id = 1), identity text NOT NULL, position bigint NOT NULL, retained_from bigint NOT NULL)",
            "CREATE TABLE IF NOT EXISTS \(objects) (collection text NOT NULL, key text NOT NULL, object bytea NOT NULL, metadata bytea, PRIMARY KEY (collection, key))",
            "CREATE TABLE IF NOT EXISTS \(log) (position bigint PRIMARY KEY, token text NOT NULL UNIQUE, record bytea NOT NULL, removed_everything boolean NOT NULL, committed_at timestamptz NOT NULL DEFAULT now())",
            "CREATE TABLE IF NOT EXISTS \(writes) (position bigint NOT NULL, collection text NOT NULL, key text NOT NULL, PRIMARY KEY (collection, key, position))",
            "CREATE INDEX IF NOT EXISTS \(writes)_by_position ON \(writes) (position)",
            "CREATE INDEX IF NOT EXISTS \(writes)_by_collection ON \(writes) (collection, position)",
            // The commits that removed everything, which conflict with every read: few, so a
            // small index whose last entry is read in one step.
            "CREATE INDEX IF NOT EXISTS \(log)_removals_of_everything ON \(log) (position) WHERE removed_everything",
        ]
    }

    /// The number of the last commit the log holds that removed everything (0 for none). Every
    /// check is written so that its plan is an index lookup whatever the table's statistics say:
    /// the commit procedure keeps one plan per statement for the session, made when the log was
    /// small, and `EXISTS (… WHERE position > p …)` planned as a scan of a log grown since
    /// made every commit read the whole log (measured: commits per second halved within
    /// seconds). `max` of an indexed column is always read from the index's end.
    var lastRemovalOfEverything: String {
        "coalesce((SELECT max(l.position) FROM \(log) l WHERE l.removed_everything), 0)"
    }

    /// The same among the commits up to `upper` (an expression).
    func lastRemovalOfEverything(through upper: String) -> String {
        "coalesce((SELECT max(l.position) FROM \(log) l WHERE l.removed_everything AND l.position <= \(upper)), 0)"
    }

    /// Makes the head row with identity $1 unless there is one.
    var createHead: String {
        "INSERT INTO \(head) (id, identity, position, retained_from) VALUES (1, $1, 0, 1) ON CONFLICT (id) DO NOTHING"
    }

    var identity: String { "SELECT identity FROM \(head) WHERE id = 1" }

    /// The commit: one statement, so one round trip, written for the commit's shape (only the
    /// checks and changes it has, each one an index lookup). In order:
    ///
    /// - `conflict`: whether a commit after the replica's position wrote what the transaction
    ///   read: anything (`everything`), a collection read whole, a key read (or emptied the
    ///   key's collection: `key = ''` marks that), or emptied everything; `behind`: the log no
    ///   longer holds the commits after the position, so nothing can be checked; `ahead`: the
    ///   position is past the primary's last commit (the primary lost commits); `diverged`: the
    ///   primary's commit at the replica's position is another commit than the one the replica
    ///   applied there (its token differs: the primary's history is not the replica's).
    /// - `head`: takes the next commit number, only when none of those holds. Every commit
    ///   updates this one row, so under serializable isolation two commits that overlap fail one
    ///   of them (SQLSTATE 40001, sent again), and the numbers follow the order of the commits.
    /// - the data: everything or collections emptied, rows removed, rows set (rows set are kept
    ///   out of the deletions, so no row is changed twice);
    /// - `marks`: what the commit wrote, for later commits' checks;
    /// - `logged`: the commit under its number, with its token;
    /// - `notified`: tells the listening replicas, when the transaction commits.
    ///
    /// Returns the commit number (null when not made), `hit`, `behind`, `ahead` and `diverged`.
    ///
    /// The statement runs inside an explicit serializable transaction whose `COMMIT` the client
    /// awaits (``PrimaryClient/commit(_:reads:basedOn:)``): the number it returns is a commit
    /// only once that `COMMIT` has completed.
    func commit(_ shape: CommitShape, bind: (CommitShape.Value) -> String) -> String {
        let position = bind(.position)
        var hits = ["\(lastRemovalOfEverything) > \(position)"]
        if shape.readsEverything {
            hits = ["h.position > \(position)"]
        } else {
            if shape.readsCollections {
                hits.append("EXISTS (SELECT 1 FROM \(writes) w WHERE w.collection = ANY(\(bind(.readCollections))) AND w.position > \(position))")
            }
            if shape.readsKeys {
                hits.append("""
                    EXISTS (SELECT 1 FROM unnest(\(bind(.readKeyCollections)), \(bind(.readKeys))) AS r(c, k)
                            WHERE EXISTS (SELECT 1 FROM \(writes) w WHERE w.collection = r.c AND w.key IN (r.k, '') AND w.position > \(position)))
                    """)
            }
        }
        let diverged = shape.checksToken
            ? "EXISTS (SELECT 1 FROM \(log) l WHERE l.position = \(position) AND l.token <> \(bind(.positionToken)))"
            : "false"
        var ctes = [
            """
            conflict AS (
              SELECT (\(position) + 1 < h.retained_from) AS behind, (\(position) > h.position) AS ahead,
                     (\(hits.joined(separator: "\n OR "))) AS hit, \(diverged) AS diverged
              FROM \(head) h WHERE h.id = 1
            )
            """,
            """
            head AS (
              UPDATE \(head) SET position = position + 1
              WHERE id = 1 AND NOT (SELECT hit OR behind OR ahead OR diverged FROM conflict)
              RETURNING position
            )
            """,
        ]
        let keptRows = shape.puts
            ? "AND (o.collection, o.key) NOT IN (SELECT * FROM unnest(\(bind(.putCollections)), \(bind(.putKeys))))"
            : ""
        if shape.removesEverything {
            ctes.append("emptied AS (DELETE FROM \(objects) o USING head WHERE true \(keptRows))")
        } else if shape.clears {
            ctes.append("emptied AS (DELETE FROM \(objects) o USING head WHERE o.collection = ANY(\(bind(.cleared))) \(keptRows))")
        }
        if shape.removals {
            ctes.append("""
                removed AS (
                  DELETE FROM \(objects) o USING head, unnest(\(bind(.removedCollections)), \(bind(.removedKeys))) AS r(c, k)
                  WHERE o.collection = r.c AND o.key = r.k \(shape.clears || shape.removesEverything ? "AND NOT (o.collection = ANY(\(bind(.cleared))) OR \(bind(.removesEverything)))" : "")
                )
                """)
        }
        if shape.puts {
            ctes.append("""
                put AS (
                  INSERT INTO \(objects) (collection, key, object, metadata)
                  SELECT r.c, r.k, r.o, CASE WHEN r.hm THEN r.m END
                  FROM head, unnest(\(bind(.putCollections)), \(bind(.putKeys)), \(bind(.objects)), \(bind(.metadata)), \(bind(.hasMetadata))) AS r(c, k, o, m, hm)
                  ON CONFLICT (collection, key) DO UPDATE SET object = excluded.object, metadata = excluded.metadata
                )
                """)
        }
        ctes.append("""
            marks AS (
              INSERT INTO \(writes) (position, collection, key)
              SELECT head.position, r.c, r.k FROM head, unnest(\(bind(.writtenCollections)), \(bind(.writtenKeys))) AS r(c, k)
              ON CONFLICT DO NOTHING
            )
            """)
        ctes.append("""
            logged AS (
              INSERT INTO \(log) (position, token, record, removed_everything)
              SELECT position, \(bind(.token)), \(bind(.record)), \(bind(.removesEverything)) FROM head
            )
            """)
        ctes.append("notified AS (\(notifies ? "SELECT pg_notify('\(channel)', position::text) AS sent FROM head" : "SELECT 1 AS sent FROM head"))")
        return "WITH " + ctes.joined(separator: ",\n") + """

            SELECT (SELECT position FROM head), c.hit, c.behind, c.ahead, c.diverged, (SELECT count(*) FROM notified)
            FROM conflict c
            """
    }

    /// Makes the commit procedure unless it exists (a `DO` block, so that replicas racing to
    /// make it fail on the catalog's unique index at worst, which ``PrimaryClient`` retries).
    ///
    /// `CALL <procedure>(…)` makes a batch of commits — those a replica's concurrent writers
    /// sent while its previous batch was on the wire — in one round trip and one transaction:
    ///
    /// - It ends the call's own transaction and runs the batch in a transaction of its own whose
    ///   first step locks the head row (`FOR UPDATE`). Every commit, of every replica, takes that
    ///   lock first, so commits are made one batch at a time, in the order of the lock; the
    ///   transaction is `READ COMMITTED`, so each step after the lock sees every commit made
    ///   before it. (No serialization failure between replicas: a batch waits for the one
    ///   before it instead of failing and being sent again. The three-round-trip commit, and
    ///   older Larder versions, update the head row under serializable isolation, so a commit of
    ///   theirs and a batch still exclude each other.)
    /// - Each commit of the batch is checked on its own, as ``commit(_:bind:)`` says, against
    ///   every commit after its position — those made earlier in the same batch included — and
    ///   is made (the next number, its rows, its marks, its log row) or refused, without
    ///   affecting the others. A commit whose replica's history is not the primary's (`ahead`,
    ///   `diverged`) refuses the whole batch: its replica stops.
    /// - It ends with `COMMIT`, awaited inside the call, before the call returns its row: a
    ///   returned number is a made commit.
    ///
    /// A commit marked `chained` follows the commits before it in the batch (the pending
    /// commits of one replica, written offline one on the other, already checked against
    /// each other there): its reads are not checked against them, and it is refused when one of
    /// them was.
    ///
    /// The arguments are ``BatchColumn``'s, in order: one element per commit for the first seven,
    /// then the rows of every commit with, in each group's first array, the (1-based) commit
    /// they belong to. The results are one element per commit: its number (0 when not made),
    /// `hit`, `behind`, `ahead`, `diverged`.
    var commitProcedure: String {
        let parameters = BatchColumn.allCases.map { "p_\($0.rawValue) \($0.sqlType)" }.joined(separator: ", ")
        return """
        DO $make$
        BEGIN
          IF NOT EXISTS (SELECT 1 FROM pg_proc WHERE proname = '\(procedure)' AND pronamespace = current_schema()::regnamespace) THEN
            CREATE PROCEDURE \(procedure)(
              \(parameters),
              INOUT o_numbers bigint[] DEFAULT NULL, INOUT o_hits boolean[] DEFAULT NULL, INOUT o_behind boolean[] DEFAULT NULL,
              INOUT o_ahead boolean[] DEFAULT NULL, INOUT o_diverged boolean[] DEFAULT NULL)
            LANGUAGE plpgsql AS $body$
            #variable_conflict use_column
            DECLARE
              head_position bigint;
              head_retained_from bigint;
              i integer;
              p bigint;
              hit boolean;
              behind boolean;
              ahead boolean;
              diverged boolean;
              made integer := 0;
              foreign_history boolean := false;
              batch_start bigint;
              check_through bigint;
              chain_refused boolean := false;
            BEGIN
              COMMIT;
              SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
              SELECT h.position, h.retained_from INTO head_position, head_retained_from FROM \(head) h WHERE h.id = 1 FOR UPDATE;
              batch_start := head_position;
              o_numbers := '{}'; o_hits := '{}'; o_behind := '{}'; o_ahead := '{}'; o_diverged := '{}';
              FOR i IN 1 .. coalesce(cardinality(p_positions), 0) LOOP
                p := p_positions[i];
                behind := p + 1 < head_retained_from;
                ahead := p > head_position;
                -- A chained commit is not checked against the commits made before it in this
                -- batch (its chain's); after one of them was refused, it is refused too.
                check_through := CASE WHEN p_chained[i] THEN batch_start ELSE head_position END;
                IF p_chained[i] AND chain_refused THEN
                  hit := true;
                ELSIF p_reads_everything[i] THEN
                  hit := check_through > p;
                ELSE
                  hit := \(lastRemovalOfEverything(through: "check_through")) > p;
                  IF NOT hit AND cardinality(p_read_collections) > 0 THEN
                    hit := EXISTS (SELECT 1 FROM unnest(p_read_collections_of, p_read_collections) AS r(n, c)
                                   WHERE r.n = i AND EXISTS (SELECT 1 FROM \(writes) w WHERE w.collection = r.c AND w.position > p AND w.position <= check_through));
                  END IF;
                  IF NOT hit AND cardinality(p_read_keys) > 0 THEN
                    hit := EXISTS (SELECT 1 FROM unnest(p_read_keys_of, p_read_key_collections, p_read_keys) AS r(n, c, k)
                                   WHERE r.n = i AND EXISTS (SELECT 1 FROM \(writes) w WHERE w.collection = r.c AND w.key IN (r.k, '') AND w.position > p AND w.position <= check_through));
                  END IF;
                END IF;
                diverged := p_position_tokens[i] <> ''
                  AND EXISTS (SELECT 1 FROM \(log) l WHERE l.position = p AND l.token <> p_position_tokens[i]);
                foreign_history := foreign_history OR ahead OR diverged;
                o_hits := o_hits || hit; o_behind := o_behind || behind; o_ahead := o_ahead || ahead; o_diverged := o_diverged || diverged;
                IF hit OR behind OR ahead OR diverged OR head_position IS NULL OR foreign_history THEN
                  o_numbers := o_numbers || 0::bigint;
                  chain_refused := chain_refused OR p_chained[i];
                  CONTINUE;
                END IF;
                head_position := head_position + 1;
                made := made + 1;
                o_numbers := o_numbers || head_position;
                IF p_removes_everything[i] THEN
                  DELETE FROM \(objects);
                ELSIF cardinality(p_cleared) > 0 THEN
                  DELETE FROM \(objects) o USING unnest(p_cleared_of, p_cleared) AS r(n, c) WHERE r.n = i AND o.collection = r.c;
                END IF;
                IF cardinality(p_removed_keys) > 0 THEN
                  DELETE FROM \(objects) o USING unnest(p_removed_of, p_removed_collections, p_removed_keys) AS r(n, c, k)
                  WHERE r.n = i AND o.collection = r.c AND o.key = r.k;
                END IF;
                IF cardinality(p_put_keys) > 0 THEN
                  INSERT INTO \(objects) (collection, key, object, metadata)
                  SELECT r.c, r.k, r.o, CASE WHEN r.hm THEN r.m END
                  FROM unnest(p_puts_of, p_put_collections, p_put_keys, p_objects, p_metadata, p_has_metadata) AS r(n, c, k, o, m, hm)
                  WHERE r.n = i
                  ON CONFLICT (collection, key) DO UPDATE SET object = excluded.object, metadata = excluded.metadata;
                END IF;
                INSERT INTO \(writes) (position, collection, key)
                SELECT head_position, r.c, r.k FROM unnest(p_written_of, p_written_collections, p_written_keys) AS r(n, c, k)
                WHERE r.n = i
                ON CONFLICT DO NOTHING;
                INSERT INTO \(log) (position, token, record, removed_everything)
                VALUES (head_position, p_tokens[i], p_records[i], p_removes_everything[i]);
              END LOOP;
              IF foreign_history OR made = 0 THEN
                o_numbers := array_fill(0::bigint, ARRAY[coalesce(cardinality(p_positions), 0)]);
                ROLLBACK;
                RETURN;
              END IF;
              UPDATE \(head) SET position = head_position WHERE id = 1;
              \(notifies ? "PERFORM pg_notify('\(channel)', head_position::text);" : "")
              COMMIT;
            END
            $body$;
          END IF;
        END
        $make$
        """
    }

    /// The call of the commit procedure, its arguments bound in ``BatchColumn``'s order.
    var callCommit: String {
        let arguments = BatchColumn.allCases.enumerated().map { "$\($0.offset + 1)::\($0.element.sqlType)" }
        return "CALL \(procedure)(\(arguments.joined(separator: ", ")), NULL, NULL, NULL, NULL, NULL)"
    }

    /// The commit procedure's parameters, in order (each named `p_<raw value>`).
    enum BatchColumn: String, CaseIterable {
        // One element per commit.
        case positions, reads_everything, removes_everything, records, tokens, position_tokens, chained
        // One element per row; `…_of` holds the commit of each.
        case read_collections_of, read_collections
        case read_keys_of, read_key_collections, read_keys
        case cleared_of, cleared
        case puts_of, put_collections, put_keys, objects, metadata, has_metadata
        case removed_of, removed_collections, removed_keys
        case written_of, written_collections, written_keys

        var sqlType: String {
            switch self {
            case .positions: "bigint[]"
            case .reads_everything, .removes_everything, .has_metadata, .chained: "boolean[]"
            case .records, .objects, .metadata: "bytea[]"
            case .read_collections_of, .read_keys_of, .cleared_of, .puts_of, .removed_of, .written_of: "integer[]"
            case .tokens, .position_tokens, .read_collections, .read_key_collections, .read_keys, .cleared,
                 .put_collections, .put_keys, .removed_collections, .removed_keys, .written_collections, .written_keys: "text[]"
            }
        }
    }

    /// The commits among the tokens $1 that were made, with their numbers.
    var committedTokens: String { "SELECT token, position FROM \(log) WHERE token = ANY($1::text[])" }

    /// Up to $2 commits after $1, in order, with their tokens, the head, the token of the
    /// commit at $1 (null when the log does not hold it) and the primary's identity: one row
    /// even when there are none.
    var commitsAfter: String {
        """
        SELECT l.position, l.record, l.token, h.position, h.retained_from,
               (SELECT token FROM \(log) WHERE position = $1::bigint), h.identity
        FROM \(head) h LEFT JOIN LATERAL (
          SELECT position, record, token FROM \(log) WHERE position > $1::bigint ORDER BY position LIMIT $2::bigint
        ) l ON true
        WHERE h.id = 1
        ORDER BY l.position
        """
    }

    /// The primary's identity, its last commit, and that commit's token (null for none).
    var headPosition: String {
        "SELECT h.identity, h.position, (SELECT token FROM \(log) WHERE position = h.position) FROM \(head) h WHERE h.id = 1"
    }
    var allObjects: String { "SELECT collection, key, object, metadata FROM \(objects)" }

    /// Forgets the commits before $1 (the log and the marks); keeps `retained_from` in step.
    /// The log keeps the row of the commit just before $1: a replica at that commit checks its
    /// token before it applies the next one.
    var prune: String {
        """
        WITH h AS (UPDATE \(head) SET retained_from = $1::bigint WHERE id = 1 AND retained_from < $1::bigint RETURNING retained_from),
        l AS (DELETE FROM \(log) WHERE position < (SELECT retained_from - 1 FROM h))
        DELETE FROM \(writes) WHERE position < (SELECT retained_from FROM h)
        """
    }
}
#endif
