import Hummingbird

/// Every endpoint of PROTOCOL.md: one controller per area, all but the
/// open ones behind the token check.
struct Routes {
    let service: ChatService
    let config: ServerConfig

    func register(on router: Router<ChatRequestContext>) {
        let read = RequestReader(config: config)
        let accounts = AccountController(service: service, read: read)
        router.addRoutes(accounts.openRoutes)
        let auth = router.group().add(middleware: AuthMiddleware(service: service))
        auth.addRoutes(accounts.routes)
        auth.addRoutes(MessageController(service: service, read: read).routes)
        auth.addRoutes(ConversationController(service: service, read: read).routes)
        auth.addRoutes(MediaController(service: service, read: read).routes)
        auth.addRoutes(SignalController(service: service, read: read).routes)
    }
}
