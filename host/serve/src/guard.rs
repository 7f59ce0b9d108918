//! What a state-changing request must show before it reaches a handler: a JSON body and,
//! when the browser says where it comes from, this server's own origin.
//!
//! Why both: a web page on another site can send a plain `<form>` (no preflight) to any
//! server the visitor can reach, but only as `text/plain`, `multipart/form-data` or
//! `application/x-www-form-urlencoded`. Requiring `application/json` makes such a request
//! fail; checking `Origin` (and `Sec-Fetch-Site`) refuses the rest of cross-site traffic.
//! Clients that are not browsers (curl, scripts, the CLI) send no `Origin` and are let
//! through: they are not acting on a visitor's behalf.

use axum::http::{header, HeaderMap, Method, StatusCode};

use crate::ApiError;

/// Whether a method changes state (everything but reads).
pub fn changes_state(method: &Method) -> bool {
    !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

/// Checks a state-changing request's headers: 415 unless the body is declared JSON, 403
/// when it comes from another origin.
pub fn check(headers: &HeaderMap) -> Result<(), ApiError> {
    check_origin(headers)?;
    check_json(headers)
}

fn check_json(headers: &HeaderMap) -> Result<(), ApiError> {
    let ct = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let essence = ct.split(';').next().unwrap_or("").trim();
    if essence.eq_ignore_ascii_case("application/json") {
        Ok(())
    } else {
        Err(ApiError(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            format!(
                "send the body as JSON (Content-Type: application/json), not `{}`",
                if ct.is_empty() { "none" } else { ct }
            ),
        ))
    }
}

/// Same origin: `Origin` names the host the request was sent to (any scheme: the server
/// may sit behind a TLS proxy). No `Origin`: a client that is not a browser, allowed.
/// `Origin: null` (sandboxed frames, some redirects) is refused: it cannot be checked.
fn check_origin(headers: &HeaderMap) -> Result<(), ApiError> {
    let refuse = |why: String| Err(ApiError(StatusCode::FORBIDDEN, why));
    if let Some(site) = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok()) {
        if site.eq_ignore_ascii_case("cross-site") {
            return refuse("requests from other sites are refused".into());
        }
    }
    let Some(origin) = headers.get(header::ORIGIN) else {
        return Ok(());
    };
    let origin = origin.to_str().unwrap_or("null");
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let origin_host = origin
        .split_once("://")
        .map(|(_, rest)| rest.trim_end_matches('/'))
        .unwrap_or("");
    if !host.is_empty() && origin_host.eq_ignore_ascii_case(host) {
        Ok(())
    } else {
        refuse(format!(
            "requests from another origin (`{origin}`) are refused; open the page of this server"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn json_from_here_or_from_no_browser_passes() {
        let json = ("content-type", "application/json; charset=utf-8");
        assert!(check(&headers(&[json, ("host", "127.0.0.1:8080")])).is_ok());
        assert!(check(&headers(&[
            json,
            ("host", "127.0.0.1:8080"),
            ("origin", "http://127.0.0.1:8080"),
            ("sec-fetch-site", "same-origin"),
        ]))
        .is_ok());
    }

    #[test]
    fn forms_and_other_sites_are_refused() {
        for ct in [
            "text/plain",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x",
        ] {
            let e = check(&headers(&[("content-type", ct)])).unwrap_err();
            assert_eq!(e.0, StatusCode::UNSUPPORTED_MEDIA_TYPE);
        }
        assert_eq!(
            check(&headers(&[])).unwrap_err().0,
            StatusCode::UNSUPPORTED_MEDIA_TYPE
        );
        let json = ("content-type", "application/json");
        for bad in [
            headers(&[
                json,
                ("host", "127.0.0.1:8080"),
                ("origin", "https://evil.example"),
            ]),
            headers(&[json, ("host", "127.0.0.1:8080"), ("origin", "null")]),
            headers(&[
                json,
                ("host", "127.0.0.1:8080"),
                ("origin", "http://127.0.0.1:9999"),
            ]),
            headers(&[json, ("sec-fetch-site", "cross-site")]),
        ] {
            assert_eq!(check(&bad).unwrap_err().0, StatusCode::FORBIDDEN);
        }
    }
}
