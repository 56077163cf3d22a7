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
        ]
    }

    /// Makes the head row with identity $1 unless there is one.
    var createHead: String {
        "INSERT INTO \(head) (id, identity, position, retained_from) VALUES (1, $1, 0, 1) ON CONFLICT (id) DO NOTHING"
    }

    var identity: String { "SELECT identity FROM \(head) WHERE id = 1" }

    /// The commit: one statement, so one round trip. In order:
    ///
    /// - `conflict`: whether a commit after the replica's position ($1) wrote what the
    ///   transaction read: every collection ($2), whole collections ($3), keys ($4, $5; a
    ///   collection emptied whole is marked by the key ''), or emptied everything; and whether the
    ///   log no longer holds the commits after $1 (`behind`), so that nothing can be checked.
    /// - `head`: takes the next commit number, only without a conflict. Every commit updates
    ///   this one row, so under serializable isolation two commits that overlap fail one of them
    ///   (SQLSTATE 40001, sent again), and the numbers follow the order of the commits.
    /// - `gone`, `put`: the data: everything ($6) or collections ($7) emptied, then rows set
    ///   ($8–$12: collection, key, object, metadata, whether there is metadata) or removed ($13,
    ///   $14). Rows set are kept out of the deletions, so no row is changed twice.
    /// - `marks`: what the commit wrote ($16, $17), for later commits' checks.
    /// - `logged`: the commit ($15) under its number, with its token ($18).
    /// - `notified`: tells the listening replicas, when the transaction commits.
    ///
    /// `ahead`: the replica's position is past the primary's last commit (the primary lost
    /// commits): nothing can be checked, and the commit is refused.
    ///
    /// Returns the commit number (null when not made), `hit`, `behind` and `ahead`.
    var commit: String {
        """
        WITH conflict AS (
          SELECT ($1::bigint + 1 < (SELECT retained_from FROM \(head) WHERE id = 1)) AS behind,
                 ($1::bigint > (SELECT position FROM \(head) WHERE id = 1)) AS ahead,
                 (EXISTS (SELECT 1 FROM \(log) l WHERE l.position > $1::bigint AND (l.removed_everything OR $2::boolean))
                  OR EXISTS (SELECT 1 FROM \(writes) w WHERE w.position > $1::bigint AND w.collection = ANY($3::text[]))
                  OR EXISTS (SELECT 1 FROM \(writes) w JOIN unnest($4::text[], $5::text[]) AS r(c, k)
                               ON w.collection = r.c AND (w.key = r.k OR w.key = '') WHERE w.position > $1::bigint)) AS hit
        ),
        head AS (
          UPDATE \(head) SET position = position + 1
          WHERE id = 1 AND NOT (SELECT hit OR behind OR ahead FROM conflict)
          RETURNING position
        ),
        gone AS (
          DELETE FROM \(objects) o USING head
          WHERE ($6::boolean OR o.collection = ANY($7::text[])
                 OR (o.collection, o.key) IN (SELECT * FROM unnest($13::text[], $14::text[])))
            AND (o.collection, o.key) NOT IN (SELECT * FROM unnest($8::text[], $9::text[]))
        ),
        put AS (
          INSERT INTO \(objects) (collection, key, object, metadata)
          SELECT r.c, r.k, r.o, CASE WHEN r.hm THEN r.m END
          FROM head, unnest($8::text[], $9::text[], $10::bytea[], $11::bytea[], $12::boolean[]) AS r(c, k, o, m, hm)
          ON CONFLICT (collection, key) DO UPDATE SET object = excluded.object, metadata = excluded.metadata
        ),
        marks AS (
          INSERT INTO \(writes) (position, collection, key)
          SELECT head.position, r.c, r.k FROM head, unnest($16::text[], $17::text[]) AS r(c, k)
          ON CONFLICT DO NOTHING
        ),
        logged AS (
          INSERT INTO \(log) (position, token, record, removed_everything)
          SELECT position, $18::text, $15::bytea, $6::boolean FROM head
        ),
        notified AS (
          \(notifies ? "SELECT pg_notify('\(channel)', position::text) AS sent FROM head" : "SELECT 1 AS sent FROM head")
        )
        SELECT (SELECT position FROM head), (SELECT hit FROM conflict), (SELECT behind FROM conflict), (SELECT ahead FROM conflict),
               (SELECT count(*) FROM notified)
        """
    }

    /// The commit with token $1, if it was made.
    var committedToken: String { "SELECT position FROM \(log) WHERE token = $1" }

    /// Up to $2 commits after $1, in order, with the head: one row even when there are none.
    var commitsAfter: String {
        """
        SELECT l.position, l.record, h.position, h.retained_from
        FROM \(head) h LEFT JOIN LATERAL (
          SELECT position, record FROM \(log) WHERE position > $1::bigint ORDER BY position LIMIT $2::bigint
        ) l ON true
        WHERE h.id = 1
        ORDER BY l.position
        """
    }

    var headPosition: String { "SELECT identity, position FROM \(head) WHERE id = 1" }
    var allObjects: String { "SELECT collection, key, object, metadata FROM \(objects)" }

    /// Forgets the commits before $1 (the log and the marks); keeps `retained_from` in step.
    var prune: String {
        """
        WITH h AS (UPDATE \(head) SET retained_from = $1::bigint WHERE id = 1 AND retained_from < $1::bigint RETURNING retained_from),
        l AS (DELETE FROM \(log) WHERE position < (SELECT retained_from FROM h))
        DELETE FROM \(writes) WHERE position < (SELECT retained_from FROM h)
        """
    }
}
