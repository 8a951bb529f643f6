/// Where each part of the screen goes, from the state alone: drawing and
/// the scroll logic agree on the message pane's size.
struct ScreenLayout {
    static let minWidth = 40
    static let minHeight = 10
    static let maxInputLines = 5

    /// Whether the terminal is big enough to draw the client at all.
    let fits: Bool
    let list: Rect?
    /// The column of the line between the panes (wide screens).
    let separatorX: Int?
    let chat: Rect?
    let header: Rect
    let messages: Rect
    let input: Rect
    /// The line above the input bar naming the message being replied to (v3).
    let replyNote: Rect?
    let status: Rect
    /// The screen without the status line (overlays centre in it).
    let body: Rect

    init(_ s: AppState) {
        let screen = Rect(x: 0, y: 0, width: s.size.width, height: s.size.height)
        fits = s.size.width >= Self.minWidth && s.size.height >= Self.minHeight
        let (body, status) = screen.splitBottom(1)
        self.body = body
        self.status = status
        var list: Rect?, chat: Rect?, separator: Int?
        if s.size.width >= 80 {
            let split = body.splitLeft(max(24, s.size.width * 3 / 10), gap: 1)
            list = split.left
            separator = split.left.maxX
            chat = split.right
        } else if s.narrowShowsMessages && s.chat != nil {
            chat = body
        } else {
            list = body
        }
        self.list = list
        self.separatorX = separator
        self.chat = chat
        let pane = chat ?? .zero
        // The header and its rule, the messages, a rule, the input bar.
        let (header, below) = pane.splitTop(2)
        let inputLines = InputBarWidget.visibleLines(s.input, width: InputBarWidget.textWidth(pane.width))
        var (rest, input) = below.splitBottom(inputLines)
        if s.replying != nil, rest.height > 3 {
            let (above, note) = rest.splitBottom(1)
            rest = above
            replyNote = note
        } else {
            replyNote = nil
        }
        self.header = header
        self.input = input
        self.messages = Rect(x: rest.x, y: rest.y, width: rest.width, height: max(1, rest.height - 1))
    }
}
