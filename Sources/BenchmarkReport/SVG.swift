import Foundation

/// The SVG 1.1 elements the plot's panels draw with, as text.
enum SVG {
  /// One color per implementation, by its column: the same in every panel.
  static let colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]

  /// The color of the implementation in column `index`.
  static func color(_ index: Int) -> String { colors[index % colors.count] }

  /// The dash pattern of a case that failed a check or did not finish.
  static let dashed = " stroke-dasharray=\"6 4\""

  static func line(
    _ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, color: String, dash: String = ""
  ) -> String {
    "<line x1=\"\(format(x1))\" y1=\"\(format(y1))\" x2=\"\(format(x2))\" y2=\"\(format(y2))\" "
      + "stroke=\"\(color)\" stroke-width=\"2\"\(dash)/>\n"
  }

  static func text(
    _ content: String, x: Double, y: Double, anchor: String, bold: Bool = false
  ) -> String {
    let weight = bold ? " font-weight=\"bold\"" : ""
    return "<text x=\"\(format(x))\" y=\"\(format(y))\" text-anchor=\"\(anchor)\"\(weight)>"
      + escaped(content) + "</text>\n"
  }

  /// A rectangle filled with `color`, faint and dashed when `faint` (a case not ranked).
  static func bar(x: Double, y: Double, width: Double, height: Double, color: String, faint: Bool)
    -> String
  {
    let style =
      faint ? " fill-opacity=\"0.3\" stroke=\"\(color)\" stroke-width=\"1\"\(dashed)" : ""
    return "<rect x=\"\(format(x))\" y=\"\(format(y))\" width=\"\(format(width))\" "
      + "height=\"\(format(height))\" fill=\"\(color)\"\(style)/>\n"
  }

  /// `content` with the characters XML gives a meaning replaced by entities.
  static func escaped(_ content: String) -> String {
    content.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
      .replacingOccurrences(of: ">", with: "&gt;")
  }

  static func format(_ value: Double) -> String { String(format: "%.1f", value) }
}
