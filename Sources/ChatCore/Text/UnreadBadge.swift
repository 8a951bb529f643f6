/// An unread count as a badge shows it: `99+` above 99, so the badge keeps
/// its width in the list whatever the count.
public enum UnreadBadge {
    public static func text(_ count: Int) -> String { count > 99 ? "99+" : String(count) }
}
