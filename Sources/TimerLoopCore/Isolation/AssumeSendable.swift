/// `closure`, typed `@Sendable`: the same function value, reinterpreted, with
/// no new allocation. The loop's tables store `@Sendable` closures; an
/// ``IsolatedEventLoop`` puts there closures that are safe for another
/// reason: they are stored, called and released on the loop's thread only.
func assumeSendable(_ closure: @escaping () -> Void) -> @Sendable () -> Void {
  unsafeBitCast(closure, to: (@Sendable () -> Void).self)
}

/// `closure`, typed `@Sendable`; see ``assumeSendable(_:)-(()->Void)``.
func assumeSendable(
  _ closure: @escaping (TimerHandle) -> Void
) -> @Sendable (TimerHandle) -> Void {
  unsafeBitCast(closure, to: (@Sendable (TimerHandle) -> Void).self)
}
