//! URL templates (`https://host/items/{id}?q={query}`) and header templates (`Token ${VAR}`).
//!
//! Kept apart from the HTTP code because this is where untrusted text (a model's arguments)
//! becomes part of a request: each value is percent-encoded for where it lands, placeholders may
//! not choose the scheme or host (an argument must never redirect a request that carries
//! credentials), and a path value of `.` or `..` is refused because URL parsing would resolve it.

use percent_encoding::utf8_percent_encode;
use serde_json::{Map, Value};
use toolscope_protocol::request::json_kind;

/// Everything but RFC 3986 unreserved characters is encoded: `/`, `&`, `=`, `?`, `#`, `+`,
/// spaces and non-ASCII text all become `%XX`, so a value stays one path segment or one query
/// value. Shared with the engine's redactor, which must spell secrets the same way.
pub(crate) use toolscope_engine::redact::URL_COMPONENT as COMPONENT;

/// Where in the URL a placeholder sits, which decides how its value is encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Position {
    Path,
    Query,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum UrlPart {
    Literal(String),
    Placeholder { name: String, position: Position },
}

/// A parsed `url` of an endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UrlTemplate {
    parts: Vec<UrlPart>,
    has_query: bool,
}

impl UrlTemplate {
    /// Parses and checks a template: balanced braces, placeholder names, an absolute http(s)
    /// URL with a fixed host.
    pub fn parse(template: &str) -> Result<Self, String> {
        let authority_end = authority_end(template)?;
        let mut parts = Vec::new();
        let mut literal = String::new();
        let mut position = Position::Path;
        let mut rest = template;
        while let Some(c) = rest.chars().next() {
            match c {
                '{' => {
                    let offset = template.len() - rest.len();
                    let close = rest
                        .find('}')
                        .ok_or_else(|| format!("'{{' at byte {offset} has no closing '}}'"))?;
                    let name = &rest[1..close];
                    if name.is_empty()
                        || !name
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
                    {
                        return Err(format!(
                            "placeholder '{{{name}}}' must be a parameter name (letters, digits, \
                             '_', '-', '.')"
                        ));
                    }
                    if offset < authority_end {
                        return Err(format!(
                            "placeholder '{{{name}}}' is in the scheme or host: arguments may \
                             only fill the path and query, so a call cannot be sent (with its \
                             credentials) to another server"
                        ));
                    }
                    if !literal.is_empty() {
                        parts.push(UrlPart::Literal(std::mem::take(&mut literal)));
                    }
                    parts.push(UrlPart::Placeholder {
                        name: name.to_owned(),
                        position,
                    });
                    rest = &rest[close + 1..];
                }
                '}' => {
                    let offset = template.len() - rest.len();
                    return Err(format!("'}}' at byte {offset} closes no placeholder"));
                }
                _ => {
                    if c == '?' || c == '#' {
                        position = Position::Query;
                    }
                    literal.push(c);
                    rest = &rest[c.len_utf8()..];
                }
            }
        }
        if !literal.is_empty() {
            parts.push(UrlPart::Literal(literal));
        }
        let has_query = template.contains('?');
        let parsed = Self { parts, has_query };
        // A sample expansion must be a valid absolute URL.
        let sample: String = parsed
            .parts
            .iter()
            .map(|p| match p {
                UrlPart::Literal(text) => text.as_str(),
                UrlPart::Placeholder { .. } => "x",
            })
            .collect();
        let url = url::Url::parse(&sample).map_err(|e| format!("not a valid URL: {e}"))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(format!(
                "scheme '{}' is not supported: use http or https",
                url.scheme()
            ));
        }
        if url.host_str().is_none_or(str::is_empty) {
            return Err("the URL has no host".to_owned());
        }
        if template.contains('#') {
            return Err("a URL fragment ('#...') is never sent to a server: remove it".to_owned());
        }
        Ok(parsed)
    }

    /// Names of the placeholders, in order (a name may repeat).
    pub fn placeholders(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            UrlPart::Placeholder { name, .. } => Some(name.as_str()),
            UrlPart::Literal(_) => None,
        })
    }

    /// Whether the template already has a query string (extra arguments then join with `&`).
    pub fn has_query(&self) -> bool {
        self.has_query
    }

    /// Fills the placeholders from `args`, each value encoded for its position.
    pub fn expand(&self, args: &Map<String, Value>) -> Result<String, String> {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                UrlPart::Literal(text) => out.push_str(text),
                UrlPart::Placeholder { name, position } => {
                    let value = args.get(name).ok_or_else(|| {
                        format!("no argument '{name}' for the URL placeholder {{{name}}}")
                    })?;
                    let text = scalar_text(value).ok_or_else(|| {
                        format!(
                            "argument '{name}' fills a URL placeholder and must be a string, \
                             number or boolean, got {}",
                            json_kind(value)
                        )
                    })?;
                    if *position == Position::Path && (text == "." || text == "..") {
                        return Err(format!(
                            "argument '{name}' is '{text}', which would change the URL's path"
                        ));
                    }
                    out.extend(utf8_percent_encode(&text, COMPONENT));
                }
            }
        }
        Ok(out)
    }
}

/// Byte offset where the scheme and authority (`https://host:port`) end.
fn authority_end(template: &str) -> Result<usize, String> {
    let Some(scheme_end) = template.find("://") else {
        return Err("must be an absolute http(s) URL such as https://host/path".to_owned());
    };
    let after = scheme_end + 3;
    let end = template[after..]
        .find(['/', '?', '#'])
        .map_or(template.len(), |i| after + i);
    Ok(end)
}

/// Text of a string, number or boolean; `None` for null, arrays and objects.
pub(crate) fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum HeaderPart {
    Literal(String),
    Env(String),
}

/// A header value with `${ENV_VAR}` references.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HeaderTemplate {
    parts: Vec<HeaderPart>,
}

impl HeaderTemplate {
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut parts = Vec::new();
        let mut rest = text;
        while let Some(start) = rest.find("${") {
            if start > 0 {
                parts.push(HeaderPart::Literal(rest[..start].to_owned()));
            }
            let after = &rest[start + 2..];
            let end = after
                .find('}')
                .ok_or_else(|| "'${' has no closing '}'".to_owned())?;
            let name = &after[..end];
            if !is_env_name(name) {
                return Err(format!(
                    "'${{{name}}}' is not an environment variable name (letters, digits, '_', \
                     not starting with a digit)"
                ));
            }
            parts.push(HeaderPart::Env(name.to_owned()));
            rest = &after[end + 1..];
        }
        if !rest.is_empty() {
            parts.push(HeaderPart::Literal(rest.to_owned()));
        }
        Ok(Self { parts })
    }

    /// The value with each variable looked up by `lookup`; the values looked up are returned
    /// too so they can be redacted from messages.
    pub fn render(
        &self,
        mut lookup: impl FnMut(&str) -> Result<String, String>,
    ) -> Result<(String, Vec<String>), String> {
        let mut out = String::new();
        let mut secrets = Vec::new();
        for part in &self.parts {
            match part {
                HeaderPart::Literal(text) => out.push_str(text),
                HeaderPart::Env(name) => {
                    let value = lookup(name)?;
                    out.push_str(&value);
                    secrets.push(value);
                }
            }
        }
        Ok((out, secrets))
    }

    /// The literal value when no variable is referenced, for load-time header checks.
    pub fn sample(&self) -> String {
        self.parts
            .iter()
            .map(|p| match p {
                HeaderPart::Literal(text) => text.as_str(),
                HeaderPart::Env(_) => "x",
            })
            .collect()
    }
}

/// Letters, digits and `_`, not starting with a digit.
pub(crate) fn is_env_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    #[test]
    fn encodes_values_for_path_and_query() {
        let t = UrlTemplate::parse("https://h.test/a/{p}/b?q={q}&x=1").expect("valid");
        let url = t
            .expand(&args(json!({"p": "a b/c&d", "q": "ü & =+?"})))
            .expect("expands");
        assert_eq!(
            url,
            "https://h.test/a/a%20b%2Fc%26d/b?q=%C3%BC%20%26%20%3D%2B%3F&x=1"
        );
        assert!(t.has_query());
        assert_eq!(t.placeholders().collect::<Vec<_>>(), ["p", "q"]);
    }

    #[test]
    fn numbers_and_booleans_fill_placeholders_other_kinds_do_not() {
        let t = UrlTemplate::parse("http://h.test/{n}/{b}").expect("valid");
        assert_eq!(
            t.expand(&args(json!({"n": 4.5, "b": true}))).as_deref(),
            Ok("http://h.test/4.5/true")
        );
        let err = t
            .expand(&args(json!({"n": [1], "b": true})))
            .expect_err("array");
        assert!(err.contains("'n'") && err.contains("an array"), "{err}");
        let err = t.expand(&args(json!({"b": true}))).expect_err("missing");
        assert!(err.contains("no argument 'n'"), "{err}");
    }

    #[test]
    fn refuses_dot_segments_from_arguments() {
        let t = UrlTemplate::parse("http://h.test/files/{name}").expect("valid");
        assert!(t.expand(&args(json!({"name": ".."}))).is_err());
        assert!(t.expand(&args(json!({"name": "..x"}))).is_ok());
    }

    #[test]
    fn rejects_bad_templates() {
        for (template, needle) in [
            ("https://{host}/x", "scheme or host"),
            ("https://api.{region}.test/x", "scheme or host"),
            ("{scheme}://h.test/", "scheme or host"),
            ("ftp://h.test/{x}", "scheme 'ftp'"),
            ("https://h.test/{x", "no closing"),
            ("https://h.test/x}", "closes no placeholder"),
            ("https://h.test/{a b}", "parameter name"),
            ("https://h.test/{}", "parameter name"),
            ("h.test/x", "absolute"),
            ("https://h.test/x#{frag}", "fragment"),
        ] {
            let err = UrlTemplate::parse(template).expect_err(template);
            assert!(err.contains(needle), "{template}: {err}");
        }
    }

    #[test]
    fn header_templates_read_variables() {
        let t = HeaderTemplate::parse("Token ${API_TOKEN}; v=1").expect("valid");
        let (value, secrets) = t.render(|name| Ok(format!("<{name}>"))).expect("renders");
        assert_eq!(value, "Token <API_TOKEN>; v=1");
        assert_eq!(secrets, ["<API_TOKEN>"]);
        assert_eq!(t.sample(), "Token x; v=1");
        assert!(HeaderTemplate::parse("${1X}").is_err());
        assert!(HeaderTemplate::parse("a ${B").is_err());
        assert_eq!(
            HeaderTemplate::parse("cost: $5").expect("valid").sample(),
            "cost: $5"
        );
    }
}
