/// What the app asks of the terminal between frames: each is queued and
/// done by the terminal thread (`Terminal.request`).
extension Terminal {
    /// Clears the terminal and repaints the last frame in full (for Ctrl-L,
    /// or after something else wrote to the terminal).
    public func invalidate() {
        request(.invalidate)
    }

    /// Turns clicks and the wheel into `.mouse` keys (Shift still selects
    /// text the terminal's way: terminals keep Shift-drag for themselves).
    public func setMouse(_ on: Bool) {
        request(.mouse(on))
    }

    /// Writes links as OSC 8 hyperlinks from the next frame on.
    public func setHyperlinks(_ on: Bool) {
        request(.hyperlinks(on))
    }

    /// Rings the terminal bell.
    public func bell() {
        request(.bell)
    }

    /// Writes a desktop notification's escape sequence (already built and
    /// cleaned by `DesktopNotifier`) between two frames.
    public func notify(_ sequence: String) {
        request(.raw(sequence))
    }

    /// Sets the window (or tmux pane) title with OSC 0, only when TERM looks
    /// like xterm, tmux, screen or another terminal known to support it.
    /// Control characters are stripped. The previous title is restored by
    /// `stop()` where the terminal keeps a title stack.
    public func setTitle(_ title: String) {
        request(.title(title))
    }
}
