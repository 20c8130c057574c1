//! The HTTP side of a recorded stream: the request that opened it and the
//! response head that answered it. Plain data, shared by the HAR reader and
//! the recording store; the response body (the event stream) is kept apart.

/// An HTTP request, as recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpRequest {
    /// The method, as written (`POST`, `GET`, …).
    pub method: String,
    /// The full URL, query included.
    pub url: String,
    /// Every header as a `(name, value)` pair, in recorded order; names keep
    /// their recorded case and repeated headers stay repeated.
    pub headers: Vec<(String, String)>,
    /// The request body, if one was recorded (for an AG-UI agent, the JSON
    /// run input).
    pub body: Option<Vec<u8>>,
}

/// The head of an HTTP response, as recorded: status and headers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpResponse {
    /// The status code (`200`, `500`, …).
    pub status: u16,
    /// Every header as a `(name, value)` pair, in recorded order.
    pub headers: Vec<(String, String)>,
}
