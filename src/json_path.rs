//! One small path language over JSON values, for the two places that address a field by
//! text: a sweep manifest's axes set scenario fields (`scenario::manifest`,
//! `platform.sites[0].nodes`), and a report card's claims read numbers out of a preset's
//! report (`reproduce::select`, `runs[label=sender].metrics.avg_wait_s`).
//!
//! A path is dot-separated parts, each a key followed by any number of brackets: `[N]`
//! indexes an array (negative from the end), `[k=v,k2=v2]` picks the first element whose
//! fields `k`, `k2` read as `v`, `v2` (strings as they are, numbers as JSON prints them),
//! `[*]` is every element. A part may leave its key out (`[0]` alone).
//!
//! The two users keep their own wording of errors (claims and manifests print them): [`get`]
//! says what a claim's path misses, [`set`] names the part of a manifest's path that is
//! missing; [`steps`] is the one reading of the text both walk.

use serde_json::Value;

/// One step of a path.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// An object's field.
    Key(String),
    /// An array's element; negative counts from the end.
    Index(i64),
    /// The first element of an array whose fields read as these values.
    Filter(Vec<(String, String)>),
    /// Every element of an array (`[*]`).
    All,
}

/// Why the text of a path does not read as steps.
#[derive(Clone, Debug, PartialEq)]
pub enum PathError {
    /// A `[` with no `]` after it.
    Unclosed,
    /// Text after a part's last `]` (the text).
    Unexpected(String),
    /// A bracket that is none of `[N]`, `[k=v,…]`, `[*]` (its inside).
    NotAStep(String),
}

/// The steps of `path` in order, each with its text (the key, or the inside of its
/// brackets), read lazily: a walker meets a missing field before a malformed part after it,
/// as it would reading the path by hand.
pub fn steps(path: &str) -> Steps<'_> {
    Steps {
        parts: path.split('.'),
        rest: None,
        failed: false,
    }
}

/// The steps of `path`, or the first part that does not read.
pub fn parse(path: &str) -> Result<Vec<Step>, PathError> {
    steps(path).map(|s| s.map(|(step, _)| step)).collect()
}

/// The iterator of [`steps`].
pub struct Steps<'a> {
    parts: std::str::Split<'a, char>,
    /// The brackets left of the current part, once its key is read.
    rest: Option<&'a str>,
    /// A part did not read: nothing after it is.
    failed: bool,
}

impl Steps<'_> {
    fn fail(&mut self, e: PathError) -> PathError {
        self.rest = None;
        self.failed = true;
        e
    }
}

impl<'a> Iterator for Steps<'a> {
    type Item = Result<(Step, &'a str), PathError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(rest) = self.rest {
                let Some(inner) = rest.strip_prefix('[') else {
                    self.rest = None;
                    if rest.is_empty() {
                        continue;
                    }
                    return Some(Err(self.fail(PathError::Unexpected(rest.to_string()))));
                };
                let Some(end) = inner.find(']') else {
                    return Some(Err(self.fail(PathError::Unclosed)));
                };
                self.rest = Some(&inner[end + 1..]);
                let inside = &inner[..end];
                return Some(bracket(inside).map(|s| (s, inside)));
            }
            if self.failed {
                return None;
            }
            let part = self.parts.next()?;
            let (key, brackets) = part.split_at(part.find('[').unwrap_or(part.len()));
            self.rest = Some(brackets);
            if !key.is_empty() {
                return Some(Ok((Step::Key(key.to_string()), key)));
            }
        }
    }
}

/// The step a bracket's inside is.
fn bracket(inside: &str) -> Result<Step, PathError> {
    if let Ok(i) = inside.trim().parse::<i64>() {
        return Ok(Step::Index(i));
    }
    if inside.trim() == "*" {
        return Ok(Step::All);
    }
    inside
        .split(',')
        .map(|kv| {
            kv.split_once('=')
                .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        })
        .collect::<Option<_>>()
        .map(Step::Filter)
        .ok_or_else(|| PathError::NotAStep(inside.to_string()))
}

/// Whether `item`'s fields read as `wanted`'s values.
fn matches(item: &Value, wanted: &[(String, String)]) -> bool {
    wanted.iter().all(|(k, v)| match item.get(k) {
        Some(Value::String(s)) => s == v,
        Some(other) => other.to_string().as_str() == v.as_str(),
        None => false,
    })
}

/// `i` of an array of `n`, negative from the end.
fn index(i: i64, n: usize) -> Option<usize> {
    let at = if i < 0 { n as i64 + i } else { i };
    usize::try_from(at).ok().filter(|&a| a < n)
}

/// The value at `path` in `root`; the error is `path: ` and what is missing (`no field 'x'`,
/// `index 5 out of 2`, `no element with label=central`). `[*]` selects no one value.
pub fn get<'a>(root: &'a Value, path: &str) -> Result<&'a Value, String> {
    let mut at = root;
    for s in steps(path) {
        let (step, text) = match s {
            Ok(s) => s,
            Err(PathError::NotAStep(inside)) => {
                at.as_array().ok_or_else(|| not_an_array(path, &inside))?;
                return Err(neither(path, &inside));
            }
            Err(PathError::Unclosed) => return Err(format!("{path}: unclosed '['")),
            Err(PathError::Unexpected(rest)) => return Err(format!("{path}: unexpected '{rest}'")),
        };
        if let Step::Key(key) = &step {
            at = at
                .get(key)
                .ok_or_else(|| format!("{path}: no field '{key}'"))?;
            continue;
        }
        let items = at.as_array().ok_or_else(|| not_an_array(path, text))?;
        at = match step {
            Step::Index(i) => index(i, items.len())
                .map(|k| &items[k])
                .ok_or_else(|| format!("{path}: index {i} out of {}", items.len()))?,
            Step::Filter(wanted) => items
                .iter()
                .find(|item| matches(item, &wanted))
                .ok_or_else(|| format!("{path}: no element with {text}"))?,
            Step::Key(_) | Step::All => return Err(neither(path, text)),
        };
    }
    Ok(at)
}

fn not_an_array(path: &str, inside: &str) -> String {
    format!("{path}: [{inside}] on something that is not an array")
}

fn neither(path: &str, inside: &str) -> String {
    format!("{path}: [{inside}] is neither an index nor key=value pairs")
}

/// Sets the field at `steps` of `root` to `v`. Every step but the last must exist; the last
/// key may be one the object leaves out (a default, which the reader of the JSON then
/// accepts or refuses). The error names the steps so far: `a.x does not exist (there: b)`,
/// `a.b[5] does not exist (the list has 2)`, `a.b is not a list`.
pub fn set(root: &mut Value, steps: &[Step], v: Value) -> Result<(), String> {
    if steps.is_empty() {
        *root = v;
        return Ok(());
    }
    set_from(root, steps, 0, v)
}

fn set_from(cur: &mut Value, steps: &[Step], k: usize, v: Value) -> Result<(), String> {
    let last = k + 1 == steps.len();
    let here = || prefix(&steps[..=k]);
    let next = match &steps[k] {
        Step::Key(key) => {
            let Value::Object(map) = cur else {
                return Err(format!("{} is not an object", prefix(&steps[..k])));
            };
            if last {
                map.insert(key.clone(), v);
                return Ok(());
            }
            if !map.contains_key(key.as_str()) {
                let known: Vec<&str> = map.keys().map(String::as_str).collect();
                return Err(format!(
                    "{} does not exist (there: {})",
                    here(),
                    known.join(", ")
                ));
            }
            map.get_mut(key.as_str()).ok_or_else(here)?
        }
        step => {
            let Value::Array(items) = cur else {
                return Err(format!("{} is not a list", prefix(&steps[..k])));
            };
            let len = items.len();
            let at = match step {
                Step::Index(i) => index(*i, len),
                Step::Filter(wanted) => items.iter().position(|item| matches(item, wanted)),
                _ => {
                    for item in items.iter_mut() {
                        if last {
                            *item = v.clone();
                        } else {
                            set_from(item, steps, k + 1, v.clone())?;
                        }
                    }
                    return Ok(());
                }
            };
            let item = at
                .and_then(|a| items.get_mut(a))
                .ok_or_else(|| format!("{} does not exist (the list has {len})", here()))?;
            if last {
                *item = v;
                return Ok(());
            }
            item
        }
    };
    set_from(next, steps, k + 1, v)
}

/// The steps as a path (`a.b[2]`), or `the scenario` for none (the root of what a manifest
/// sets).
pub fn prefix(steps: &[Step]) -> String {
    let mut s = String::new();
    for step in steps {
        match step {
            Step::Key(k) if s.is_empty() => s.push_str(k),
            Step::Key(k) => {
                s.push('.');
                s.push_str(k);
            }
            Step::Index(i) => s.push_str(&format!("[{i}]")),
            Step::Filter(kv) => {
                let pairs: Vec<String> = kv.iter().map(|(k, v)| format!("{k}={v}")).collect();
                s.push_str(&format!("[{}]", pairs.join(",")));
            }
            Step::All => s.push_str("[*]"),
        }
    }
    if s.is_empty() {
        "the scenario".into()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_read_as_keys_indexes_filters_and_every_element() {
        assert_eq!(
            parse("runs[label=a, n=2].m[-1][*]"),
            Ok(vec![
                Step::Key("runs".into()),
                Step::Filter(vec![("label".into(), "a".into()), ("n".into(), "2".into())]),
                Step::Key("m".into()),
                Step::Index(-1),
                Step::All,
            ])
        );
        assert_eq!(parse("[0]"), Ok(vec![Step::Index(0)]));
        assert_eq!(parse("a[1"), Err(PathError::Unclosed));
        assert_eq!(parse("a[1]x"), Err(PathError::Unexpected("x".into())));
        assert_eq!(parse("a[x]"), Err(PathError::NotAStep("x".into())));
    }

    #[test]
    fn set_reaches_every_element_and_names_what_is_missing() {
        let mut v = json!({"a": [{"k": 1, "x": 0}, {"k": 2, "x": 0}]});
        let all = parse("a[*].x").unwrap_or_default();
        assert!(set(&mut v, &all, json!(5)).is_ok());
        assert_eq!(v, json!({"a": [{"k": 1, "x": 5}, {"k": 2, "x": 5}]}));
        let one = parse("a[k=2].x").unwrap_or_default();
        assert!(set(&mut v, &one, json!(7)).is_ok());
        assert_eq!(get(&v, "a[-1].x"), Ok(&json!(7)));
        let missing = parse("a[k=3].x").unwrap_or_default();
        assert_eq!(
            set(&mut v, &missing, json!(0)),
            Err("a[k=3] does not exist (the list has 2)".into())
        );
    }
}
