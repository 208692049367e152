//! Everything the CLI prints on stdout goes through here, so a closed pipe ends the process
//! quietly instead of panicking.
//!
//! `println!` panics with "failed printing to stdout: Broken pipe" when the reader went away
//! (`toolscope parse reply.txt | head`). Restoring the default SIGPIPE action would need unsafe
//! code and would also kill the process when an MCP server it spawned dies with its stdin open,
//! which must stay a transport error. So the writes themselves are checked: on a broken pipe
//! the process exits with 141, the status a shell reports for a tool killed by SIGPIPE.

use std::fmt;
use std::io::{self, Write};

use crate::exit;

/// The exit status of a process killed by SIGPIPE, as a shell reports it (128 + 13).
pub const BROKEN_PIPE: u8 = 141;

/// Writes formatted text (and a newline when `newline`) to stdout.
pub fn write(args: fmt::Arguments<'_>, newline: bool) {
    let mut out = io::stdout().lock();
    let written = out.write_fmt(args).and_then(|()| {
        if newline {
            out.write_all(b"\n")
        } else {
            Ok(())
        }
    });
    if let Err(error) = written {
        stop(&error);
    }
}

/// Writes raw bytes to stdout and flushes (streamed model text).
pub fn write_bytes(bytes: &[u8]) {
    let mut out = io::stdout().lock();
    if let Err(error) = out.write_all(bytes).and_then(|()| out.flush()) {
        stop(&error);
    }
}

/// Ends the process after a failed write to stdout.
fn stop(error: &io::Error) -> ! {
    if error.kind() == io::ErrorKind::BrokenPipe {
        std::process::exit(i32::from(BROKEN_PIPE));
    }
    // stderr may be gone too; nothing else can be done about it.
    let _ = writeln!(io::stderr(), "error: cannot write to stdout: {error}");
    std::process::exit(i32::from(exit::ENVIRONMENT));
}

/// `println!` that stops quietly on a closed pipe.
macro_rules! outln {
    () => {
        $crate::output::write(format_args!(""), true)
    };
    ($($arg:tt)*) => {
        $crate::output::write(format_args!($($arg)*), true)
    };
}

/// `print!` that stops quietly on a closed pipe.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::output::write(format_args!($($arg)*), false)
    };
}

pub(crate) use {out, outln};
