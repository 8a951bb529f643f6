/// The stable error codes of PROTOCOL.md with their HTTP statuses.
public enum APIErrorCode: String, Codable, Sendable, CaseIterable {
    case invalidRequest = "invalid_request"
    case unauthorized
    case forbidden
    /// v3: the receiver blocked the sender, or takes messages from friends only.
    case blocked
    case notFound = "not_found"
    case conflict
    case cursorExpired = "cursor_expired"
    case tooLarge = "too_large"
    case unsupportedMedia = "unsupported_media"
    case revokeWindowPassed = "revoke_window_passed"
    /// v3: an edit later than the server's edit window.
    case editWindowPassed = "edit_window_passed"
    case rateLimited = "rate_limited"
    /// v4: the caller's daily upload quota is spent.
    case quota
    /// The server's disk is full: nothing was stored; the same request may be retried later.
    case storageFull = "storage_full"
    /// v4: a secret message's envelopes do not match the current devices.
    case devicesChanged = "devices_changed"
    /// v4: a sixth device with keys.
    case tooManyDevices = "too_many_devices"
    /// v4: a secret chat with someone who has no device with keys.
    case noDevices = "no_devices"

    public var httpStatus: Int {
        switch self {
        case .invalidRequest: 400
        case .unauthorized: 401
        case .forbidden, .blocked: 403
        case .notFound: 404
        case .conflict, .devicesChanged, .tooManyDevices, .noDevices: 409
        case .cursorExpired: 410
        case .tooLarge, .quota: 413
        case .unsupportedMedia: 415
        case .revokeWindowPassed, .editWindowPassed: 422
        case .rateLimited: 429
        case .storageFull: 503
        }
    }
}

/// `{"error": {"code": "...", "message": "..."}}`
public struct APIErrorBody: Codable, Sendable, Hashable {
    public struct Detail: Codable, Sendable, Hashable {
        public var code: String
        public var message: String
        /// v4, `devices_changed` only: the current devices per imUid.
        public var devices: [String: [String]]?
    }
    public var error: Detail
    public init(code: APIErrorCode, message: String) {
        error = Detail(code: code.rawValue, message: message)
    }
    public init(rawCode: String, message: String) {
        error = Detail(code: rawCode, message: message)
    }
    public init(code: APIErrorCode, message: String, devices: [String: [String]]?) {
        error = Detail(code: code.rawValue, message: message, devices: devices)
    }
}
