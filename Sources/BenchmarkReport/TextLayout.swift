/// Plain-text layout for the report: prose wrapped and figures grouped so that every line fits
/// a terminal of ``TextLayout/width`` columns.
///
/// Widths count characters (`×`, `÷` and `µ` are one column each), which is what a terminal
/// shows for the report's text.
public enum TextLayout {
  /// The widest line the report prints: a 100-column terminal.
  public static let width = 100

  /// `text` broken at spaces into lines of at most `width` columns, the first starting with
  /// `first` and the others with `rest` (a hanging indent); a word longer than a line gets a
  /// line of its own rather than being cut.
  static func wrap(_ text: String, first: String = "", rest: String = "", width: Int = width)
    -> [String]
  {
    var lines: [String] = []
    var line = first
    var lineHasWord = false
    for word in text.split(separator: " ") {
      if lineHasWord && line.count + 1 + word.count > width {
        lines.append(line)
        line = rest
        lineHasWord = false
      }
      line += (lineHasWord ? " " : "") + word
      lineHasWord = true
    }
    if lineHasWord { lines.append(line) }
    return lines
  }

  /// `value` as printed, with its whole part grouped by thousands when it has five digits or
  /// more (`1,000,000`, `21,042.1`, `-12,345`); anything that is not a plain decimal number is
  /// returned as it is.
  static func grouped(_ value: String) -> String {
    let sign = value.hasPrefix("-") ? "-" : ""
    let unsigned = value.dropFirst(sign.count)
    let parts = unsigned.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
    let whole = parts[0]
    guard whole.count >= 5, whole.allSatisfy(\.isASCII), whole.allSatisfy(\.isNumber),
      parts.count == 1 || parts[1].allSatisfy({ $0.isASCII && $0.isNumber })
    else { return value }
    var groups: [Substring] = []
    var end = whole.endIndex
    while end > whole.startIndex {
      let start = whole.index(end, offsetBy: -3, limitedBy: whole.startIndex) ?? whole.startIndex
      groups.insert(whole[start..<end], at: 0)
      end = start
    }
    return sign + groups.joined(separator: ",") + (parts.count == 2 ? "." + parts[1] : "")
  }

  /// `text` padded with spaces on the left to `width` columns.
  static func right(_ text: String, _ width: Int) -> String {
    String(repeating: " ", count: max(width - text.count, 0)) + text
  }

  /// `text` padded with spaces on the right to `width` columns.
  static func left(_ text: String, _ width: Int) -> String {
    text + String(repeating: " ", count: max(width - text.count, 0))
  }
}
