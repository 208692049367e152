//! Starting a browser command on a sign-in page, for the CLI and the app alike: `$BROWSER`
//! is the long-standing way a person names theirs (its words, with the address in place of a
//! `%s` or appended), and tests point it at a program that stands in for the person.

/// Starts `command` on `url` and returns at once; the browser outlives the wait for the
/// redirect, so it is reaped on a thread of its own.
pub fn launch(command: &str, url: &str) -> Result<(), String> {
    let mut words: Vec<String> = command.split_whitespace().map(str::to_owned).collect();
    if words.is_empty() {
        return Err("no browser command is set".into());
    }
    if words.iter().any(|w| w.contains("%s")) {
        for word in &mut words {
            *word = word.replace("%s", url);
        }
    } else {
        words.push(url.to_owned());
    }
    let mut child = std::process::Command::new(&words[0])
        .args(&words[1..])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| format!("could not start {}: {e}", words[0]))?;
    std::thread::spawn(move || child.wait());
    Ok(())
}

/// The person's `$BROWSER`, when set and not empty.
pub fn configured() -> Option<String> {
    std::env::var("BROWSER")
        .ok()
        .filter(|command| !command.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn puts_the_address_in_place_of_percent_s_or_after_the_command() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let out = dir.path().join("seen");
        let script = format!("sh -c echo>{}_%s", out.display());
        // `sh -c echo>FILE_URL`: the shell writes an empty line to a file named after the URL.
        launch(&script, "x").expect("started");
        let expected = dir.path().join("seen_x");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while !expected.exists() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert!(expected.exists(), "the command did not get the address");
        assert!(launch("", "x").is_err());
        assert!(launch("/nonexistent/browser", "x")
            .expect_err("no such program")
            .contains("could not start /nonexistent/browser"));
    }
}
