//! Which model endpoint a command talks to (a saved profile or flags), and `toolscope
//! endpoints`: list, add, remove and test the profiles.

use std::time::Duration;

use clap::{Args, Subcommand, ValueEnum};

use toolscope_llm::client::{Endpoint, Wire};
use toolscope_llm::model::EndpointModel;
use toolscope_llm::profiles::{KeySource, Profile, ProfileStore, WireName};

use crate::output::outln;
use crate::setup::{self, SetupError};
use crate::{exit, GlobalArgs};

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum WireArg {
    /// OpenAI-compatible Chat Completions (vLLM, SGLang, llama.cpp, Ollama, LM Studio, ...).
    Openai,
    /// OpenAI's Responses API.
    Responses,
    /// Anthropic Messages.
    Anthropic,
    /// Google Gemini generateContent.
    Gemini,
}

impl WireArg {
    fn name(self) -> WireName {
        match self {
            Self::Openai => WireName::OpenaiChat,
            Self::Responses => WireName::OpenaiResponses,
            Self::Anthropic => WireName::Anthropic,
            Self::Gemini => WireName::Gemini,
        }
    }
}

/// Which endpoint: a saved profile, or one given on the command line.
#[derive(Debug, Args)]
pub struct EndpointArgs {
    /// A saved profile (`toolscope endpoints add`).
    #[arg(long, short, value_name = "PROFILE", conflicts_with_all = ["url", "model"])]
    endpoint: Option<String>,
    /// Base URL (`http://127.0.0.1:8000/v1` for an OpenAI-compatible server).
    #[arg(long, value_name = "URL", requires = "model")]
    url: Option<String>,
    #[arg(long, value_enum, default_value = "openai")]
    wire: WireArg,
    #[arg(long, value_name = "MODEL")]
    model: Option<String>,
    /// Environment variable holding the API key (with --url).
    #[arg(long, value_name = "VAR")]
    api_key_env: Option<String>,
    /// Seconds the stream may stay silent before it counts as stalled.
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    idle_timeout: u64,
}

impl EndpointArgs {
    pub fn resolve(&self) -> Result<Endpoint, SetupError> {
        if let Some(name) = &self.endpoint {
            return ProfileStore::new(&setup::data_dir())
                .endpoint(name)
                .map_err(|e| SetupError::usage(e.to_string()));
        }
        let (Some(url), Some(model)) = (&self.url, &self.model) else {
            return Err(SetupError::usage(
                "name an endpoint: --endpoint PROFILE, or --url URL --model MODEL",
            ));
        };
        let api_key = match &self.api_key_env {
            None => None,
            Some(var) => Some(
                std::env::var(var)
                    .map_err(|_| SetupError::usage(format!("--api-key-env: ${var} is not set")))?,
            ),
        };
        Ok(Endpoint::new(
            wire_of(self.wire.name()),
            url.clone(),
            model.clone(),
            api_key,
            Duration::from_secs(self.idle_timeout.max(1)),
        ))
    }
}

fn wire_of(name: WireName) -> Wire {
    match name {
        WireName::OpenaiChat => Wire::OpenAiChat,
        WireName::OpenaiResponses => Wire::OpenAiResponses,
        WireName::Anthropic => Wire::Anthropic,
        WireName::Gemini => Wire::Gemini,
    }
}

#[derive(Debug, Args)]
pub struct EndpointsArgs {
    #[command(subcommand)]
    action: Option<EndpointsAction>,
}

#[derive(Debug, Subcommand)]
enum EndpointsAction {
    /// List the saved profiles (the default).
    List,
    /// Save a profile (replacing one of the same name).
    Add {
        name: String,
        #[arg(long)]
        url: String,
        #[arg(long)]
        model: String,
        #[arg(long, value_enum, default_value = "openai")]
        wire: WireArg,
        /// Take the API key from this environment variable when the profile is used.
        #[arg(long, value_name = "VAR", conflicts_with = "key_stdin")]
        key_env: Option<String>,
        /// Read the API key once from stdin and keep it in the owner-only key file.
        #[arg(long)]
        key_stdin: bool,
    },
    /// Delete a profile and its stored key.
    Remove { name: String },
    /// Connect and list the models the endpoint serves.
    Test { name: String },
}

pub async fn endpoints(global: &GlobalArgs, args: EndpointsArgs) -> Result<u8, SetupError> {
    let store = ProfileStore::new(&setup::data_dir());
    let failed = |e: toolscope_llm::profiles::ProfileError| SetupError::usage(e.to_string());
    match args.action.unwrap_or(EndpointsAction::List) {
        EndpointsAction::List => {
            let profiles = store.list().map_err(failed)?;
            if global.json {
                crate::render::json(&profiles);
            } else if profiles.is_empty() {
                outln!("no endpoint profiles (add one with `toolscope endpoints add`)");
            }
            if !global.json {
                for p in &profiles {
                    outln!("{:<16} {:?} {} {}", p.name, p.wire, p.base_url, p.model);
                }
            }
        }
        EndpointsAction::Add {
            name,
            url,
            model,
            wire,
            key_env,
            key_stdin,
        } => {
            let key = match (key_env, key_stdin) {
                (Some(var), _) => KeySource::Env { var },
                (None, true) => {
                    let key = setup::read_input(None)?;
                    store.store_key(&name, key.trim()).map_err(failed)?;
                    KeySource::Stored
                }
                (None, false) => KeySource::None,
            };
            store
                .save(Profile {
                    name: name.clone(),
                    wire: wire.name(),
                    base_url: url,
                    model,
                    key,
                    idle_timeout_s: 60,
                })
                .map_err(failed)?;
            eprintln!("saved endpoint profile '{name}'");
        }
        EndpointsAction::Remove { name } => {
            store.remove(&name).map_err(failed)?;
            eprintln!("removed endpoint profile '{name}'");
        }
        EndpointsAction::Test { name } => {
            let endpoint = store.endpoint(&name).map_err(failed)?;
            let model =
                EndpointModel::new(endpoint).map_err(|e| SetupError::environment(e.to_string()))?;
            match model.list_models().await {
                Ok(models) => {
                    if global.json {
                        crate::render::json(&models);
                    } else {
                        outln!("connected: {} model(s)", models.len());
                        for m in &models {
                            outln!("  {m}");
                        }
                    }
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    return Ok(exit::MODEL_FAILED);
                }
            }
        }
    }
    Ok(exit::OK)
}
