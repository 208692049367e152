//! `toolscope sign-out NAME`: forgets the stored sign-in of an MCP server named in
//! `--mcp-config` (the token an earlier command got by signing in; see docs/mcp-sign-in.md).
//! The next command that connects the server signs in again.

use clap::Args;
use toolscope_mcp::{McpTransport, SignInFiles};

use crate::setup::{self, SetupError};
use crate::{exit, GlobalArgs};

#[derive(Debug, Args)]
pub struct SignOutArgs {
    /// The server's name in the --mcp-config file.
    name: String,
}

pub fn sign_out(global: &GlobalArgs, args: &SignOutArgs) -> Result<u8, SetupError> {
    let path = global.mcp_config.as_ref().ok_or_else(|| {
        SetupError::usage("sign-out needs --mcp-config FILE, the file that names the server")
    })?;
    let text = setup::read_mcp_config(path)?;
    let report = toolscope_mcp::import(&text)
        .map_err(|e| SetupError::usage(format!("MCP config '{}': {e}", path.display())))?;
    let server = report
        .servers
        .iter()
        .find(|server| server.name == args.name)
        .ok_or_else(|| {
            SetupError::usage(format!(
                "no server named '{}' in '{}'",
                args.name,
                path.display()
            ))
        })?;
    let McpTransport::Http { url, .. } = &server.transport else {
        return Err(SetupError::usage(format!(
            "'{}' is started as a command: only HTTP servers are signed in to",
            args.name
        )));
    };
    // Sign-ins are kept under the URL the connection used, `${VAR}`s expanded.
    let url = toolscope_mcp::config::expand_variables(url, "url", &|name| std::env::var(name).ok())
        .map_err(|e| SetupError::usage(e.to_string()))?;
    let files = SignInFiles::in_data_dir(&setup::data_dir());
    let forgot = files.forget(&server.name, &url).map_err(|e| {
        SetupError::environment(format!("cannot forget the sign-in of '{}': {e}", args.name))
    })?;
    if global.json {
        println!(
            "{}",
            serde_json::json!({"server": args.name, "url": url, "signed_out": forgot})
        );
    } else if forgot {
        println!("signed out of '{}' ({url})", args.name);
    } else {
        println!("'{}' had no stored sign-in ({url})", args.name);
    }
    Ok(exit::OK)
}
