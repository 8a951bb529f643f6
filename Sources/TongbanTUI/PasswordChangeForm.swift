import ChatCore
import ChatSync
import Foundation

/// What `tongban password` asks before changing the password (v4): on a
/// terminal the current password and the new one twice, never echoed; from
/// a pipe two lines, the current password then the new one, so a script
/// can change it. The server signs the account's other devices out.
public struct PasswordChangeForm {
    /// The outcome in the user's words.
    public enum Outcome: Equatable, Sendable {
        case changed(String)
        case failed(String)
    }

    let session: Session
    let localizer: Localizer
    let io: SignInForm.IO
    /// Whether a person types the answers (standard input is a terminal).
    let interactive: Bool

    public init(session: Session, localizer: Localizer, io: SignInForm.IO = .terminal, interactive: Bool) {
        self.session = session; self.localizer = localizer; self.io = io; self.interactive = interactive
    }

    public func run() async -> Outcome {
        let l = localizer
        let answers: (current: String, new: String)
        switch interactive ? asked() : piped() {
        case .success(let given): answers = given
        case .failure(let problem): return .failed(problem.words)
        }
        do {
            try await session.changePassword(current: answers.current, new: answers.new)
            return .changed(l.string("password.changed"))
        } catch {
            return .failed(ServerWords.failed("password.failed", error, l))
        }
    }

    /// Why nothing was sent, in the user's words.
    struct Problem: Error { let words: String }

    /// The three questions, without echo; a new password typed differently
    /// the second time is not sent.
    func asked() -> Result<(current: String, new: String), Problem> {
        let l = localizer
        guard let current = io.readSecret(l.string("cli.password.current")), !current.isEmpty else {
            return .failure(Problem(words: l.string("signin.passwordEmpty")))
        }
        guard let new = io.readSecret(l.string("cli.password.new")), !new.isEmpty,
              let again = io.readSecret(l.string("cli.password.again")) else {
            return .failure(Problem(words: l.string("signin.passwordEmpty")))
        }
        guard again == new else { return .failure(Problem(words: l.string("signup.mismatch"))) }
        return .success((current, new))
    }

    /// Two lines from a pipe: the current password, then the new one.
    func piped() -> Result<(current: String, new: String), Problem> {
        guard let current = io.readLine(), let new = io.readLine(), !current.isEmpty, !new.isEmpty else {
            return .failure(Problem(words: localizer.string("cli.password.stdin")))
        }
        return .success((current, new))
    }
}
