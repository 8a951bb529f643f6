/// A rectangle of cells (ratatui's `Rect`): widgets draw inside one.
struct Rect: Equatable, Sendable {
    var x: Int
    var y: Int
    var width: Int
    var height: Int

    static let zero = Rect(x: 0, y: 0, width: 0, height: 0)

    var maxX: Int { x + width }
    var maxY: Int { y + height }

    func contains(x px: Int, y py: Int) -> Bool { px >= x && px < maxX && py >= y && py < maxY }

    /// The top `rows` rows and the rest.
    func splitTop(_ rows: Int) -> (top: Rect, rest: Rect) {
        let r = max(0, min(rows, height))
        return (Rect(x: x, y: y, width: width, height: r), Rect(x: x, y: y + r, width: width, height: height - r))
    }

    /// The rest and the bottom `rows` rows.
    func splitBottom(_ rows: Int) -> (rest: Rect, bottom: Rect) {
        let r = max(0, min(rows, height))
        return (Rect(x: x, y: y, width: width, height: height - r), Rect(x: x, y: maxY - r, width: width, height: r))
    }

    /// The left `columns` columns, one column between, and the rest.
    func splitLeft(_ columns: Int, gap: Int = 0) -> (left: Rect, right: Rect) {
        let c = max(0, min(columns, width))
        return (Rect(x: x, y: y, width: c, height: height),
                Rect(x: x + c + gap, y: y, width: max(0, width - c - gap), height: height))
    }
}
