//! Where the conformance fixtures meet the 2026-07-28 dispatch: the fixture methods
//! (`prompts/*`, `resources/*`, `completion/complete`, [`super::fixtures`]), the MRTR tools
//! and prompt ([`super::input_required`]) and the tasks fixtures
//! ([`super::task_fixtures`]). [`super::dispatch`] calls in here with one arm each.

use serde_json::Value;

use crate::http::HttpRequest;
use crate::jsonrpc::{INTERNAL_ERROR, INVALID_PARAMS};
use crate::rpc_answer::RpcAnswer;
use crate::rpc_params::{ParamMembers, RpcParams};
use crate::tools;

use super::super::Server;
use super::super::jobs::JobSpec;
use super::dispatch::Answer;
use super::errors::ModernRejection;
use super::fixtures::{fixture_method, fixture_tool_call};
use super::input_required::{
    Mrtr, MrtrError, TEST_INPUT_REQUIRED_RESULT_PROMPT, TEST_TOOL_WITH_TASK, completion_text,
    prompt_result, round_trip,
};
use super::meta::RequestMeta;
use super::task_fixtures::{FixtureCall, TaskFixture, TaskOutcome, fixture_call};
use super::tasks::{TASKS_EXTENSION, declares_tasks};

/// How long `test_tool_with_task`'s task works once its input is gathered (virtual ms).
const TOOL_WITH_TASK_MS: u64 = 100;

impl Server {
    /// A fixture method: `prompts/list`, `prompts/get`, `resources/list`,
    /// `resources/templates/list`, `resources/read`, `completion/complete`.
    pub(super) fn fixture_answer(
        &self,
        id: &Value,
        method: &str,
        params: &Value,
        meta: &RequestMeta,
    ) -> Result<Answer, ModernRejection> {
        let name = params.get("name").and_then(Value::as_str);
        if method == "prompts/get" && name == Some(TEST_INPUT_REQUIRED_RESULT_PROMPT) {
            let key = &self.modern.state_key;
            let answer = round_trip(key, TEST_INPUT_REQUIRED_RESULT_PROMPT, params, meta)
                .expect("the prompt gathers input");
            return mrtr_answer(id, answer, prompt_result);
        }
        let answer = fixture_method(&self.knobs, id, method, params)
            .ok_or_else(|| ModernRejection::MethodNotFound(method.to_string()))?;
        Ok(Answer::Now(answer))
    }

    /// A `tools/call` of a fixture tool, or `None` when the tool is not one.
    pub(super) fn fixture_tool(
        &self,
        request: &HttpRequest,
        id: &Value,
        params: &Value,
        meta: &RequestMeta,
    ) -> Option<Result<Answer, ModernRejection>> {
        let name = params.get("name").and_then(Value::as_str)?;
        let args = params.get("arguments").cloned().unwrap_or(Value::Null);
        if let Some(result) = fixture_tool_call(request, name, &args) {
            return Some(result.map(|r| Answer::Now(RpcAnswer::complete(id, r))));
        }
        let as_task = self.knobs.tasks_offered && declares_tasks(meta);
        if let Some(answer) = round_trip(&self.modern.state_key, name, params, meta) {
            if let (true, Ok(Mrtr::Complete(gathered))) =
                (name == TEST_TOOL_WITH_TASK && as_task, &answer)
            {
                let call = FixtureCall {
                    work: (1, TOOL_WITH_TASK_MS),
                    fixture: TaskFixture {
                        outcome: TaskOutcome::Text(completion_text(name, gathered)),
                        pending: Default::default(),
                    },
                    task_required: false,
                };
                return Some(Ok(Answer::FixtureTask(call)));
            }
            return Some(mrtr_answer(id, answer, |gathered| {
                tools::text_result(&completion_text(name, gathered))
            }));
        }
        let call = match fixture_call(name, &args)? {
            Ok(call) => call,
            Err(message) => {
                return Some(Ok(Answer::Now(RpcAnswer::error(
                    id,
                    INVALID_PARAMS,
                    format!("Invalid params: {message}"),
                ))));
            }
        };
        if as_task && (call.work.0 > 0 || !call.fixture.pending.is_empty()) {
            return Some(Ok(Answer::FixtureTask(call)));
        }
        if call.task_required && !as_task {
            return Some(Err(ModernRejection::MissingExtension(TASKS_EXTENSION)));
        }
        Some(Ok(match call.fixture.outcome {
            TaskOutcome::ProtocolError(message) => {
                Answer::Now(RpcAnswer::error(id, INTERNAL_ERROR, message))
            }
            _ if call.work.0 > 0 => Answer::Stream(
                JobSpec {
                    tool: name.to_string(),
                    steps: call.work.0,
                    interval_ms: call.work.1,
                },
                None,
            ),
            outcome => Answer::Now(RpcAnswer::complete(
                id,
                outcome.result().expect("not a protocol error"),
            )),
        }))
    }

    /// Starts a fixture's task and answers with its `CreateTaskResult`.
    pub(super) fn create_fixture_task(
        &mut self,
        id: &Value,
        params: &RpcParams,
        call: FixtureCall,
    ) -> RpcAnswer {
        let spec = JobSpec {
            tool: params.tool_name().unwrap_or("").to_string(),
            steps: call.work.0,
            interval_ms: call.work.1,
        };
        self.create_task_with(id, params, spec, None, Some(call.fixture))
    }
}

/// The answer to one MRTR round trip: the `InputRequiredResult`, the finished result, or
/// the refusal.
fn mrtr_answer(
    id: &Value,
    answer: Result<Mrtr, MrtrError>,
    finish: impl FnOnce(&serde_json::Map<String, Value>) -> Value,
) -> Result<Answer, ModernRejection> {
    match answer {
        Ok(Mrtr::InputRequired(result)) => Ok(Answer::Now(RpcAnswer::complete(id, result))),
        Ok(Mrtr::Complete(gathered)) => Ok(Answer::Now(RpcAnswer::complete(id, finish(&gathered)))),
        Err(MrtrError::InvalidParams(message)) => {
            Ok(Answer::Now(RpcAnswer::error(id, INVALID_PARAMS, message)))
        }
        Err(MrtrError::Rejected(why)) => Err(why),
    }
}
