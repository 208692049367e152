//! What the executor would say of a request without running it: the Parser's validation of
//! every request of a reply, with the same classified errors and suggestions a run gives.

use std::collections::HashMap;

use super::failure::Failure;
use super::Executor;
use toolscope_protocol::request::ParsedToolRequest;
use toolscope_protocol::result::{ErrorKind, ExecutionError};

impl Executor {
    /// Everything [`Self::execute`] checks before running, without running: routing,
    /// agent-callable and argument validation. `None` means the request would run; an error
    /// carries the same suggestion a run would.
    pub fn check(&self, request: &ParsedToolRequest) -> Option<ExecutionError> {
        let failure = match self.registry.resolve(&request.tool_name) {
            Err(e) => Failure::unresolved(&request.tool_name, e, &self.registry),
            Ok((_, method)) if !method.meta.agent_callable => Failure::not_agent_callable(&method),
            Ok((_, method)) => Self::prepare_args(request, &method).err()?,
        };
        Some(failure.into_error())
    }

    /// [`Self::check`] for every request of a reply. A name that leads nowhere is looked up
    /// once however often the reply repeats it: its near-name search runs over the whole
    /// registry, and a pasted reply can hold thousands of calls to a name that is not there.
    pub fn check_all(&self, requests: &[ParsedToolRequest]) -> Vec<Option<ExecutionError>> {
        let mut unresolved: HashMap<&str, ExecutionError> = HashMap::new();
        requests
            .iter()
            .map(|request| {
                if let Some(known) = unresolved.get(request.tool_name.as_str()) {
                    return Some(known.clone());
                }
                let error = self.check(request)?;
                if matches!(
                    error.kind,
                    ErrorKind::InvalidName | ErrorKind::ToolNotFound | ErrorKind::MethodNotFound
                ) {
                    unresolved.insert(&request.tool_name, error.clone());
                }
                Some(error)
            })
            .collect()
    }
}
