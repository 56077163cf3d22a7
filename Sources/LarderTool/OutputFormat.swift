#if Extras
import ArgumentParser
import Foundation

/// How a reading command prints its rows (`--format`): the command's own text, one JSON array,
/// JSON Lines, an aligned table, or CSV.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, jsonl, table, csv

    /// Whether rows can be written one at a time as they come (what `log --follow` needs): a JSON
    /// array and an aligned table need every row first.
    var streams: Bool { self != .json && self != .table }
}

/// Rows of named columns, printed in any ``OutputFormat`` but `text` (which each command writes
/// itself). A cell is a JSON value: strings and numbers print as themselves in a table or CSV,
/// `null` as nothing, arrays and objects as compact JSON.
struct RecordTable {
    let columns: [String]
    private(set) var rows: [[JSONValue]] = []

    init(columns: [String]) {
        self.columns = columns
    }

    mutating func append(_ row: [JSONValue]) {
        precondition(row.count == columns.count, "a row of \(row.count) cells for \(columns.count) columns")
        rows.append(row)
    }

    /// Prints every row in `format` (`text` prints as `table`).
    func print(_ format: OutputFormat, pretty: Bool = false) {
        switch format {
        case .json:
            sayJSON(.array(rows.map(object)), pretty: pretty)
        case .jsonl:
            for row in rows { sayJSON(object(row)) }
        case .csv:
            say(Self.csvLine(columns))
            for row in rows { say(Self.csvLine(row.map(Self.cell))) }
        case .table, .text:
            let cells = [columns] + rows.map { $0.map { VisibleText.escape(Self.cell($0)) } }
            var widths = [Int](repeating: 0, count: columns.count)
            for line in cells {
                for (column, cell) in line.enumerated() { widths[column] = max(widths[column], cell.count) }
            }
            for line in cells {
                var text = ""
                for (column, cell) in line.enumerated() {
                    if column == line.count - 1 {
                        text += cell
                    } else {
                        text += cell + String(repeating: " ", count: widths[column] - cell.count + 2)
                    }
                }
                while text.hasSuffix(" ") { text.removeLast() }
                say(text)
            }
        }
    }

    /// The header line of CSV output (for output that streams rows with ``csvRow(_:)``).
    var csvHeader: String { Self.csvLine(columns) }

    /// One row as a CSV line.
    func csvRow(_ row: [JSONValue]) -> String { Self.csvLine(row.map(Self.cell)) }

    /// One row as a JSON object of its columns.
    func object(_ row: [JSONValue]) -> JSONValue {
        .object(zip(columns, row).map { JSONMember($0, $1) })
    }

    /// A cell as text: strings bare, `null` empty, anything else compact JSON.
    static func cell(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): text
        case .null: ""
        default: JSONWriter(pretty: false).text(value)
        }
    }

    /// Fields joined by commas, each quoted (RFC 4180) when it holds a comma, a quote or a line
    /// break, or starts or ends with a space.
    static func csvLine(_ fields: [String]) -> String {
        fields.map { field in
            let needsQuotes = field.contains { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" } || field.hasPrefix(" ") || field.hasSuffix(" ")
            return needsQuotes ? "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : field
        }
        .joined(separator: ",")
    }
}
#endif
