"""Sending: one request out and one complete response back, with everything around an attempt.

In: a `Request`, headers, an `AttemptTimeout` and a `RetryPolicy`. Out: a 2xx `Response` (or a
streamed body), else the typed error of the last attempt. Modules: `_sender` (attempts,
which redirects to follow, and the turn at the wire each request carries to the transport under
a rate limit), `_retry` (when and how long to wait), `_gate` (the in-flight
cap, and the pauses a response asks for, shared by every request), `_slots` (in-flight slots:
a client's own, and a ceiling clients of one `ConnectionPool` share), `_budget`
(the client's own rate limit: a turn up front, and a time at the wire once the transport has
its connection), `_proxies` (which proxy a request goes through), `_events`
(hooks, the log: INFO and DEBUG lines, REMEDY_LOG; the start and end of each logical call),
`_headers`, `_credential` (a
token provider's token, asked before each attempt, and the tokens known), `_status` (status to
error), `_transport`, the only module that calls aiohttp (with `ConnectionPool`, connections
several clients share), and `_mock` (`MockTransport`: a
transport that answers from a function, for tests).
"""
