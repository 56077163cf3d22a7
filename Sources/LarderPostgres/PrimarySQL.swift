/// The SQL a replica sends its primary, for the tables of one prefix.
///
/// It keeps to what PostgreSQL-compatible engines also take: `text`, `bytea`, `bigint`,
/// `boolean`, `unnest` of arrays, `INSERT … ON CONFLICT`, data-modifying `WITH`, serializable
/// transactions; no extension, no advisory lock. `pg_notify` is the one PostgreSQL function,
/// left out when the configuration says the engine has no LISTEN/NOTIFY
/// (``PrimaryConfiguration/notifies``); replicas then learn of commits by polling.
///
/// One stored procedure, ``commitProcedure``, makes a commit in one round trip where the engine
/// has procedures that end transactions (PostgreSQL 11 and later); where it cannot be made, the
/// replica commits with ``commit(_:bind:)`` inside `BEGIN` … `COMMIT` (three round trips).
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
        procedure = "\(prefix)_commit_v1\(notifies ? "" : "_quiet")"
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
        ]
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
        var hits = ["EXISTS (SELECT 1 FROM \(log) l WHERE l.position > \(position) AND l.removed_everything)"]
        if shape.readsEverything {
            hits = ["EXISTS (SELECT 1 FROM \(log) l WHERE l.position > \(position))"]
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
    /// `CALL <procedure>(…)` makes a commit in one round trip: the procedure ends the call's own
    /// transaction, runs the commit in a serializable transaction of its own, and ends that with
    /// `COMMIT` — which it awaits, inside the call — before the call returns its row. So a
    /// returned number is a made commit; a serialization failure at that `COMMIT` (40001)
    /// reaches the caller as the call's error, before any row; a conflict returns no number,
    /// with what it found, and the transaction rolled back. The steps and their meaning are
    /// those of ``commit(_:bind:)``, as statements of their own whose plans PostgreSQL keeps for
    /// the session; each step a commit does not need is skipped. The parameters are
    /// ``CommitShape/Value``'s, in ``procedureArguments``'s order, then the five results.
    var commitProcedure: String {
        """
        DO $make$
        BEGIN
          IF NOT EXISTS (SELECT 1 FROM pg_proc WHERE proname = '\(procedure)' AND pronamespace = current_schema()::regnamespace) THEN
            CREATE PROCEDURE \(procedure)(
              p_position bigint, p_reads_everything boolean, p_read_collections text[], p_read_key_collections text[], p_read_keys text[],
              p_removes_everything boolean, p_cleared text[], p_put_collections text[], p_put_keys text[],
              p_objects bytea[], p_metadata bytea[], p_has_metadata boolean[],
              p_removed_collections text[], p_removed_keys text[], p_written_collections text[], p_written_keys text[],
              p_record bytea, p_token text, p_position_token text,
              INOUT o_number bigint DEFAULT NULL, INOUT o_hit boolean DEFAULT NULL, INOUT o_behind boolean DEFAULT NULL,
              INOUT o_ahead boolean DEFAULT NULL, INOUT o_diverged boolean DEFAULT NULL)
            LANGUAGE plpgsql AS $body$
            #variable_conflict use_column
            DECLARE
              head_position bigint;
              head_retained_from bigint;
            BEGIN
              COMMIT;
              SET TRANSACTION ISOLATION LEVEL SERIALIZABLE;
              SELECT h.position, h.retained_from INTO head_position, head_retained_from FROM \(head) h WHERE h.id = 1;
              o_behind := p_position + 1 < head_retained_from;
              o_ahead := p_position > head_position;
              IF p_reads_everything THEN
                o_hit := EXISTS (SELECT 1 FROM \(log) l WHERE l.position > p_position);
              ELSE
                o_hit := EXISTS (SELECT 1 FROM \(log) l WHERE l.position > p_position AND l.removed_everything);
                IF NOT o_hit AND cardinality(p_read_collections) > 0 THEN
                  o_hit := EXISTS (SELECT 1 FROM \(writes) w WHERE w.collection = ANY(p_read_collections) AND w.position > p_position);
                END IF;
                IF NOT o_hit AND cardinality(p_read_keys) > 0 THEN
                  o_hit := EXISTS (SELECT 1 FROM unnest(p_read_key_collections, p_read_keys) AS r(c, k)
                                   WHERE EXISTS (SELECT 1 FROM \(writes) w WHERE w.collection = r.c AND w.key IN (r.k, '') AND w.position > p_position));
                END IF;
              END IF;
              o_diverged := p_position_token IS NOT NULL
                AND EXISTS (SELECT 1 FROM \(log) l WHERE l.position = p_position AND l.token <> p_position_token);
              IF o_hit OR o_behind OR o_ahead OR o_diverged OR head_position IS NULL THEN
                ROLLBACK;
                RETURN;
              END IF;
              UPDATE \(head) SET position = position + 1 WHERE id = 1 RETURNING position INTO o_number;
              IF p_removes_everything THEN
                DELETE FROM \(objects);
              ELSIF cardinality(p_cleared) > 0 THEN
                DELETE FROM \(objects) o WHERE o.collection = ANY(p_cleared);
              END IF;
              IF cardinality(p_removed_keys) > 0 THEN
                DELETE FROM \(objects) o USING unnest(p_removed_collections, p_removed_keys) AS r(c, k)
                WHERE o.collection = r.c AND o.key = r.k;
              END IF;
              IF cardinality(p_put_keys) > 0 THEN
                INSERT INTO \(objects) (collection, key, object, metadata)
                SELECT r.c, r.k, r.o, CASE WHEN r.hm THEN r.m END
                FROM unnest(p_put_collections, p_put_keys, p_objects, p_metadata, p_has_metadata) AS r(c, k, o, m, hm)
                ON CONFLICT (collection, key) DO UPDATE SET object = excluded.object, metadata = excluded.metadata;
              END IF;
              INSERT INTO \(writes) (position, collection, key)
              SELECT o_number, r.c, r.k FROM unnest(p_written_collections, p_written_keys) AS r(c, k)
              ON CONFLICT DO NOTHING;
              INSERT INTO \(log) (position, token, record, removed_everything) VALUES (o_number, p_token, p_record, p_removes_everything);
              \(notifies ? "PERFORM pg_notify('\(channel)', o_number::text);" : "")
              COMMIT;
            END
            $body$;
          END IF;
        END
        $make$
        """
    }

    /// The call of the commit procedure, its arguments bound as `bind` numbers them, in
    /// ``procedureArguments``'s order.
    var callCommit: String {
        let arguments = Self.procedureArguments.enumerated().map { "$\($0.offset + 1)::\(CommitArguments.sqlType(of: $0.element))" }
        return "CALL \(procedure)(\(arguments.joined(separator: ", ")), NULL, NULL, NULL, NULL, NULL)"
    }

    /// The procedure's arguments, in order.
    static let procedureArguments: [CommitShape.Value] = [
        .position, .readsEverything, .readCollections, .readKeyCollections, .readKeys,
        .removesEverything, .cleared, .putCollections, .putKeys, .objects, .metadata, .hasMetadata,
        .removedCollections, .removedKeys, .writtenCollections, .writtenKeys, .record, .token, .positionToken,
    ]

    /// The commit with token $1, if it was made.
    var committedToken: String { "SELECT position FROM \(log) WHERE token = $1" }

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
