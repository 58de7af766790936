//! CSV fields as the per-job files write them: a field holding a comma, a quote or a newline
//! is quoted, its quotes doubled (RFC 4180); anything else is written as it is.

/// `s` as one CSV field.
pub fn field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}
