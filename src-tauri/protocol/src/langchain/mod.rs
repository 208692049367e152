//! LangChain's text agents: the JSON action blob (`langchain_json`) and the XML agent
//! (`langchain_xml`).
//!
//! Before chat APIs had tools, LangChain's agents asked any model to write its next step as
//! text, and many applications still run them (`create_structured_chat_agent`,
//! `create_json_chat_agent`, `create_react_agent` with the JSON prompt, `create_xml_agent`).
//! Each step names one tool and its input; the framework runs it and appends the observation.
//! The plain `Action:` / `Action Input:` ReAct text is the `react` format; these two are the
//! shapes that have no `Action Input` line.
//!
//! What the two agents share: a non-object input becomes `{"input": …}` (the key `react` uses,
//! since LangChain hands the raw value to the tool as its single input), and an input that is
//! an object is the arguments.

mod json_agent;
mod xml_agent;

pub use json_agent::LangChainJson;
pub use xml_agent::LangChainXml;

use serde_json::{Map, Value};

use crate::react::SINGLE_INPUT_KEY;

/// The arguments a step's input stands for: an object as is, nothing as `{}`, anything else
/// under [`SINGLE_INPUT_KEY`].
fn arguments_of(input: Option<Value>) -> Map<String, Value> {
    match input {
        Some(Value::Object(args)) => args,
        None | Some(Value::Null) => Map::new(),
        Some(other) => {
            let mut args = Map::new();
            args.insert(SINGLE_INPUT_KEY.to_owned(), other);
            args
        }
    }
}

/// The name LangChain gives the step that ends the loop instead of calling a tool.
const FINAL_ANSWER: &str = "Final Answer";
