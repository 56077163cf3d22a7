/// The SQL a replica sends its primary, for the tables of one prefix.
///
/// It keeps to what PostgreSQL-compatible engines also take: `text`, `bytea`, `bigint`,
/// `boolean`, `unnest` of arrays, `INSERT … ON CONFLICT`, data-modifying `WITH`, serializable
/// transactions; no extension, no stored procedure, no advisory lock. `pg_notify` is the one
/// PostgreSQL function, left out when the configuration says the engine has no LISTEN/NOTIFY
/// (``PrimaryConfiguration/notifies``); replicas then learn of commits by polling.
struct PrimarySQL {
    let head: String
    let objects: String
    let log: String
    let writes: String
    /// The LISTEN/NOTIFY channel that tells replicas of a commit.
    let channel: String
    /// Whether commits NOTIFY the channel.
    let notifies: Bool

    init(prefix: String, notifies: Bool = true) {
        self.notifies = notifies
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
