//! Qwen-Agent's system prompt for the `✿FUNCTION✿` protocol, kept apart from the parser: the
//! wording is the reference's (`FN_CALL_TEMPLATE` in `qwen_fncall_prompt.py`), in English or
//! Chinese, and the parameters are printed as Python's `json.dumps` prints them.

use std::io;

use serde_json::ser::Formatter;
use serde_json::Value;

use super::{ARGS, FUNCTION, RESULT, RETURN};

/// The prompt for these function objects (`{"name", "description", "parameters"}`), in the
/// parallel form, since every call of a reply is read.
pub fn system_prompt(functions: &Value) -> String {
    let functions = functions.as_array().map(Vec::as_slice).unwrap_or_default();
    let zh = functions.iter().any(|f| {
        let text = |key: &str| f[key].as_str().unwrap_or_default().chars().any(is_cjk);
        text("name") || text("description")
    });
    let descriptions: Vec<String> = functions.iter().map(|f| describe(f, zh)).collect();
    let names: Vec<&str> = functions
        .iter()
        .map(|f| f["name"].as_str().unwrap_or_default())
        .collect();
    let names = names.join(",");
    let mut out = String::new();
    if zh {
        out.push_str("# 工具\n\n## 你拥有如下工具：\n\n");
        out.push_str(&descriptions.join("\n\n"));
        out.push_str("\n\n## 你可以在回复中插入以下命令以并行调用N个工具：\n\n");
        out.push_str(&format!(
            "{FUNCTION}: 工具1的名称，必须是[{names}]之一\n{ARGS}: 工具1的输入\n\
             {FUNCTION}: 工具2的名称\n{ARGS}: 工具2的输入\n...\n\
             {FUNCTION}: 工具N的名称\n{ARGS}: 工具N的输入\n\
             {RESULT}: 工具1的结果\n{RESULT}: 工具2的结果\n...\n{RESULT}: 工具N的结果\n\
             {RETURN}: 根据工具结果进行回复，需将图片用![](url)渲染出来"
        ));
    } else {
        out.push_str("# Tools\n\n## You have access to the following tools:\n\n");
        out.push_str(&descriptions.join("\n\n"));
        out.push_str(
            "\n\n## Insert the following command in your reply when you need to call N tools in parallel:\n\n",
        );
        out.push_str(&format!(
            "{FUNCTION}: The name of tool 1, should be one of [{names}]\n{ARGS}: The input of tool 1\n\
             {FUNCTION}: The name of tool 2\n{ARGS}: The input of tool 2\n...\n\
             {FUNCTION}: The name of tool N\n{ARGS}: The input of tool N\n\
             {RESULT}: The result of tool 1\n{RESULT}: The result of tool 2\n...\n\
             {RESULT}: The result of tool N\n\
             {RETURN}: Reply based on tool results. Images need to be rendered as ![](url)"
        ));
    }
    out
}

/// One function's section: `### name`, then `name: description Parameters: {…} <format>`.
fn describe(function: &Value, zh: bool) -> String {
    let name = function["name"].as_str().unwrap_or_default();
    let description = function["description"].as_str().unwrap_or_default();
    let parameters = python_json(&function["parameters"]);
    // The code interpreter takes its code fenced, every other function a JSON object.
    let code = name.ends_with("code_interpreter");
    let section = match (zh, code) {
        (true, true) => format!(
            "### {name}\n\n{name}: {description} 输入参数：{parameters} 此工具的输入应为Markdown代码块。"
        ),
        (true, false) => format!(
            "### {name}\n\n{name}: {description} 输入参数：{parameters} 此工具的输入应为JSON对象。"
        ),
        (false, true) => format!(
            "### {name}\n\n{name}: {description} Parameters: {parameters} Enclose the code within triple backticks (`) at the beginning and end of the code."
        ),
        (false, false) => format!(
            "### {name}\n\n{name}: {description} Parameters: {parameters} Format the arguments as a JSON object."
        ),
    };
    section.trim_end().to_owned()
}

fn is_cjk(c: char) -> bool {
    matches!(c, '\u{4e00}'..='\u{9fff}' | '\u{3400}'..='\u{4dbf}')
}

/// `value` as Python's `json.dumps(value, ensure_ascii=False)` writes it: `, ` and `: `.
pub fn python_json(value: &Value) -> String {
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut out, PythonSeparators);
    if serde::Serialize::serialize(value, &mut ser).is_err() {
        return value.to_string();
    }
    String::from_utf8(out).unwrap_or_else(|_| value.to_string())
}

struct PythonSeparators;

impl Formatter for PythonSeparators {
    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        if first {
            Ok(())
        } else {
            w.write_all(b", ")
        }
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        if first {
            Ok(())
        } else {
            w.write_all(b", ")
        }
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }
}
