//! Process-lifetime strings and rule lists for formats described at run time.
//!
//! The shared scanner and the `Protocol` trait take `&'static` markers, ids and rule lists, which
//! is what lets every built-in format describe itself in constants at no cost. A format read
//! from a file gets the same by interning: each distinct string (and rule list) is leaked once
//! and handed out again whenever it comes back. Reloading a file that did not change, or
//! editing it back and forth, allocates nothing new; memory grows only with text a person has
//! never written before, a few bytes per marker they type.

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock, PoisonError};

use crate::framing::Rule;

fn strings() -> &'static Mutex<HashSet<&'static str>> {
    static STRINGS: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    STRINGS.get_or_init(Mutex::default)
}

fn rule_lists() -> &'static Mutex<Vec<&'static [Rule]>> {
    static RULES: OnceLock<Mutex<Vec<&'static [Rule]>>> = OnceLock::new();
    RULES.get_or_init(Mutex::default)
}

/// `text`, living as long as the process.
pub fn string(text: &str) -> &'static str {
    let mut strings = strings().lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(&known) = strings.get(text) {
        return known;
    }
    let leaked: &'static str = Box::leak(text.to_owned().into_boxed_str());
    strings.insert(leaked);
    leaked
}

/// `rules` (whose markers are interned), living as long as the process. Rule lists are few
/// (one per format a person declares), so a linear search finds a known one.
pub fn rules(rules: Vec<Rule>) -> &'static [Rule] {
    let mut lists = rule_lists().lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(&known) = lists.iter().find(|known| **known == rules.as_slice()) {
        return known;
    }
    let leaked: &'static [Rule] = Box::leak(rules.into_boxed_slice());
    lists.push(leaked);
    leaked
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framing::Close;

    #[test]
    fn the_same_text_is_leaked_once() {
        let a = string("<call>");
        let b = string(&String::from("<call>"));
        assert!(std::ptr::eq(a, b));
        let rule = Rule::call(a, Close::Marker(string("</call>")));
        let first = rules(vec![rule]);
        let second = rules(vec![rule]);
        assert!(std::ptr::eq(first, second));
    }
}
