/// Pictures in pixels, drawn by the terminal thread after a frame's cells.
extension Terminal {
    /// A frame's pictures in pixels, after its cells: kitty's persist until
    /// replaced, so they are sent when they change; sixel pixels are lost
    /// wherever a cell is redrawn, so they are sent with every frame, and
    /// the screen is repainted once they are gone.
    static func drawImages(_ images: [GridImage], after last: inout [GridImage], _ graphics: GraphicsProtocol,
                           cell: (width: Int, height: Int), _ screen: NCursesScreen) {
        defer { last = images }
        switch graphics {
        case .halfBlock:
            return
        case .kitty:
            guard images != last else { return }
        case .sixel:
            // A picture that left the frame (scrolled away, or covered by a
            // dialog) leaves its pixels wherever no cell was redrawn: repaint.
            if last.contains(where: { old in !images.contains(old) }) { screen.invalidate() }
            if images.isEmpty { return }
        }
        screen.writeRaw(TerminalGraphics.frame(images, graphics: graphics, cell: cell))
    }
}
