import GRDB

/// The SQLite reference for full-text search: FTS5 through GRDB, the way its documentation
/// suggests for an index over rows kept elsewhere — an external-content FTS5 table over a table of
/// documents, `unicode61` with diacritics removed (Larder's tokenizer folds them too), no stemming
/// on either side, ranked by FTS5's built-in BM25. SQLite's defaults otherwise: a rollback journal
/// (`journal_mode = DELETE`) and `synchronous = FULL`, so that a commit is on the disk when it
/// returns, as with Larder's default durability (`.full`).
public final class FTS5Store {
    public let queue: DatabaseQueue

    public init(path: String) throws {
        queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: """
                CREATE TABLE documents(id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, title TEXT NOT NULL, body TEXT NOT NULL);
                CREATE VIRTUAL TABLE search USING fts5(title, body, content='documents', content_rowid='id', tokenize='unicode61 remove_diacritics 2');
                """)
        }
    }

    /// Inserts `documents` (new keys) in one transaction.
    public func insert(_ documents: ArraySlice<FullTextCorpus.Document>) throws {
        try queue.write { db in
            let row = try db.cachedStatement(sql: "INSERT INTO documents(key, title, body) VALUES (?, ?, ?)")
            let index = try db.cachedStatement(sql: "INSERT INTO search(rowid, title, body) VALUES (?, ?, ?)")
            for document in documents {
                try row.execute(arguments: [document.key, document.title, document.body])
                try index.execute(arguments: [db.lastInsertedRowID, document.title, document.body])
            }
        }
    }

    /// Replaces the texts of existing documents in one transaction (FTS5's external content
    /// needs the old texts to delete their entries).
    public func update(_ documents: [FullTextCorpus.Document]) throws {
        try queue.write { db in
            let old = try db.cachedStatement(sql: "SELECT id, title, body FROM documents WHERE key = ?")
            let remove = try db.cachedStatement(sql: "INSERT INTO search(search, rowid, title, body) VALUES ('delete', ?, ?, ?)")
            let row = try db.cachedStatement(sql: "UPDATE documents SET title = ?, body = ? WHERE id = ?")
            let index = try db.cachedStatement(sql: "INSERT INTO search(rowid, title, body) VALUES (?, ?, ?)")
            for document in documents {
                guard let previous = try Row.fetchOne(old, arguments: [document.key]) else { continue }
                let id: Int64 = previous["id"]
                try remove.execute(arguments: [id, previous["title"] as String, previous["body"] as String])
                try row.execute(arguments: [document.title, document.body, id])
                try index.execute(arguments: [id, document.title, document.body])
            }
        }
    }

    /// The keys of the best `limit` matches of `query` (FTS5 syntax), by BM25.
    public func search(_ query: String, limit: Int = 10) throws -> [String] {
        try queue.read { db in
            let statement = try db.cachedStatement(sql: "SELECT documents.key FROM search JOIN documents ON documents.id = search.rowid WHERE search MATCH ? ORDER BY rank LIMIT ?")
            return try String.fetchAll(statement, arguments: [query, limit])
        }
    }

    /// How many documents match `query`.
    public func count(_ query: String) throws -> Int {
        try queue.read { db in
            try Int.fetchOne(db.cachedStatement(sql: "SELECT count(*) FROM search WHERE search MATCH ?"), arguments: [query]) ?? 0
        }
    }

    /// The value of the pragma `name` (`journal_mode`, `synchronous`), as SQLite reports it.
    public func setting(_ name: String) throws -> String {
        try queue.read { db in try String.fetchOne(db, sql: "PRAGMA \(name)") ?? "?" }
    }

    /// The bytes of the full-text index: FTS5's own tables (`search_data`, `search_idx`,
    /// `search_docsize`, `search_config`), not the documents table, whose counterpart in Larder is
    /// the objects themselves.
    public func indexBytes() throws -> Int {
        try queue.read { db in
            try Int.fetchOne(db, sql: "SELECT sum(pgsize) FROM dbstat WHERE name LIKE 'search_%'") ?? 0
        }
    }

    /// The bytes of each of FTS5's tables.
    public func indexBytesByTable() throws -> [(name: String, bytes: Int)] {
        try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT name, sum(pgsize) AS bytes FROM dbstat WHERE name LIKE 'search_%' GROUP BY name ORDER BY name")
                .map { ($0["name"], $0["bytes"]) }
        }
    }
}
