//! Wire formats between a model and the tool system: pure text in, calls out.
//!
//! A [`Protocol`] decides how tools are presented to a model, how the model's calls are written
//! in its reply, and how results are fed back. One module per format; [`ProtocolSet`] lists them
//! so the [`parser`] facade, the CLI and the app pick new formats up with no special cases.
//!
//! This crate has no async runtime and no registry: a format is handed the methods it presents
//! ([`ToolDefinitionInput`], [`method::MethodMetadata`]) and the results it feeds back
//! ([`result::ToolExecutionResult`]), and it produces [`request::ParsedToolRequest`]s and
//! diagnostics. The engine owns where tools come from and how calls run. The crate's README
//! lists the formats and how to add one.

pub mod anthropic;
pub mod anthropic_xml;
pub mod apertus;
pub mod arg_pairs;
pub mod balanced;
pub mod call_json;
pub mod calls;
pub mod chatglm3;
pub mod cline;
pub mod coerce;
pub mod command_a;
pub mod command_r;
pub mod continue_tool;
pub mod cwm;
pub mod declared;
pub mod deepseek_v3;
pub mod deepseek_v31;
pub mod deepseek_v32;
pub mod detect;
pub mod dots;
pub mod framing;
pub mod function_gemma;
pub mod functionary_v2;
pub mod functionary_v32;
pub mod gemini;
pub mod gemma;
pub mod gemma4;
pub mod gemma_syntax;
pub mod gigachat3;
pub mod gigachat35;
pub mod glaive;
pub mod glimmer;
pub mod glm45;
pub mod glm4_chat;
pub mod glm53_flash;
pub mod gorilla_openfunctions;
pub mod gpt_oss;
pub mod granite_pythonic;
pub mod hermes;
pub mod hunyuan_v3;
pub mod hunyuan_v4;
pub mod hyperclovax;
pub mod inkling;
pub mod iquest_coder_v2;
mod json_document;
pub mod json_lenient;
pub mod json_strict;
pub mod json_value;
pub mod k2_v3;
pub mod kimi_k2;
pub mod kimi_k3;
pub mod langchain;
pub mod lfm2;
pub mod llama3_json;
pub mod llama_cpp_generic;
pub mod method;
pub mod minicpm5_xml;
pub mod minimax_m1;
pub mod minimax_m2;
pub mod minimax_m3;
pub mod mistral;
pub mod mistral_v11;
pub mod nemotron_v2;
pub mod nexusraven;
pub mod olmo3;
pub mod openai_chat;
pub mod openai_responses;
pub mod parser;
pub mod phi4_mini;
pub mod plamo3;
pub mod prompt;
pub mod pylines;
pub mod pylit;
pub mod pythonic;
pub mod qwen3_coder;
pub mod qwen_agent;
pub mod react;
pub mod request;
pub mod result;
pub mod rwkv;
mod schema_summary;
pub mod seed_oss;
pub mod solar_open;
pub mod step3;
pub mod step_audio2;
pub mod stream;
pub mod text_position;
pub mod vcp;
pub mod xlam;
pub mod xml_markup;
pub mod xml_tag;

use std::sync::{Arc, OnceLock};

use crate::method::MethodMetadata;
use crate::request::ParseOutput;
use crate::result::ToolExecutionResult;
use framing::{Block, Framing};

pub use schema_summary::{example_args, parameter_summary};

/// One enabled tool with its agent-callable methods, as discovery hands it to a protocol.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDefinitionInput {
    pub tool_id: String,
    pub tool_name: String,
    pub description: String,
    pub methods: Vec<MethodMetadata>,
}

impl ToolDefinitionInput {
    pub fn routing_name(&self, method: &MethodMetadata) -> String {
        format!("{}_{}", self.tool_id, method.name)
    }
}

pub trait Protocol: Send + Sync {
    /// Stable id used in configs, the CLI (`--format`) and parsed requests.
    fn id(&self) -> &'static str;

    /// Human-readable name.
    fn label(&self) -> &'static str;

    /// The text (or JSON payload, for API formats) that presents the tools to a model.
    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String;

    /// Extracts every call in `text`. Must not panic on any input; problems become diagnostics.
    /// Framed formats get it from the shared scanner; whole-document formats write their own.
    fn parse_tool_requests(&self, text: &str) -> ParseOutput {
        framing::parse(self, text)
    }

    /// Renders results the way this format feeds them back to the model.
    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String;

    /// Where calls sit in a reply, for formats found by the shared block scanner (which then
    /// also gives them streaming). `None` for formats parsed as a whole document.
    fn framing(&self) -> Option<Framing> {
        None
    }

    /// Decodes one block the scanner found (only called for framed formats).
    fn decode_block(&self, _text: &str, _block: &Block, _out: &mut ParseOutput) {}

    /// What makes a reply look like this format, for auto-detect. Framed formats derive it
    /// from their framing; others must say it or are never detected.
    fn signature(&self) -> detect::Signature {
        detect::framing_signature(self.framing())
    }
}

/// Names vLLM's and SGLang's `--tool-call-parser` give formats built in here, as (name, format
/// id). Each parser was checked to read the same wire format as the format it maps to (ours may
/// be more lenient); names of parsers with no equivalent here are left out. An id always wins
/// over an alias.
pub const ALIASES: &[(&str, &str)] = &[
    // vLLM (`vllm/tool_parsers/__init__.py`)
    ("llama4_json", "llama3_json"),  // the same Llama3JsonToolParser
    ("llama4_pythonic", "pythonic"), // `[f(…)]`, optionally in <|python_start|>
    ("openai", "gpt_oss"),           // GptOssToolParser (harmony), not the Chat API
    ("granite4", "hermes"),          // <tool_call>{…}</tool_call>
    ("granite-20b-fc", "granite_20b_fc"),
    ("glm47", "glm45"),           // GLM-4.7; glm45 reads both layouts
    ("qwen3_xml", "qwen3_coder"), // the same XML layout, another parser
    ("internlm", "internlm2"),
    ("hunyuan_a13b", "hunyuan"),
    ("minimax", "minimax_m1"), // MinimaxToolParser: MiniMax-M1's <tool_calls>
    ("phi4_mini_json", "phi4_mini"),
    ("functiongemma", "function_gemma"),
    ("cohere_command3", "command_a"), // <|START_ACTION|>[…]<|END_ACTION|>
    ("cohere_command4", "command_a"),
    ("ernie45", "hermes"), // Ernie45ToolParser: <tool_call>\n{…}\n</tool_call> after </think>
    ("step3p5", "qwen3_coder"), // Step3p5ToolParser: <tool_call><function=…><parameter=…>
    ("ling3", "glm45"),    // Ling3ToolParser / SGLang Ling3Detector: GLM-4.7 <arg_key> layout
    // SGLang (`python/sglang/srt/function_call/function_call_parser.py`)
    ("qwen", "hermes"), // Qwen25Detector: <tool_call>{…}</tool_call>
    ("qwen25", "hermes"),
    ("llama3", "llama3_json"), // Llama32Detector
    ("gpt-oss", "gpt_oss"),
    ("deepseekv3", "deepseek_v3"),
    ("deepseekv31", "deepseek_v31"),
    ("deepseekv32", "deepseek_v32"), // DSML
    ("glm", "glm45"),                // Glm4MoeDetector
    ("minimax-m2", "minimax_m2"),
    ("minimax-m3", "minimax_m3"), // MinimaxM3Detector
    ("interns1", "internlm2"),    // InternlmDetector (Intern-S1): <|action_start|><|plugin|>
    ("spark25", "glm45"),         // Spark25Detector: GLM's <tool_call>NAME<arg_key>… pairs
    ("apertus2509", "apertus"),
    // vLLM `hy_v3` / `hy_v4` (HYV3ToolParser, HYV4ToolParser): Tencent Hy3 / Hy4
    ("hy_v3", "hunyuan_v3"),
    ("hy_v4", "hunyuan_v4"),
    // vLLM `deepseek_v4` (DeepSeekV4ToolParser): the V3.2 DSML grammar in <｜DSML｜tool_calls>,
    // which deepseek_v32 reads besides its own wrapper
    ("deepseek_v4", "deepseek_v32"),
    // vLLM PoolsideV1ToolParser and SGLang poolside_v1: GLM-4.5 `<tool_call>NAME<arg_key>…`
    ("poolside_v1", "glm45"),
    ("minicpm5", "minicpm5_xml"), // vLLM MiniCPM5XMLToolParser, SGLang MiniCPM5Detector
    ("muse_glimmer", "glimmer"),  // vLLM MuseGlimmerToolParser (ollama: glimmer)
    // vLLM `mimo` (MiMoToolParser; MimoV2FlashToolParser reads the same) and SGLang `mimo`
    // (MiMoDetector): Xiaomi MiMo's <tool_call><function=…><parameter=…> Qwen3-Coder layout
    ("mimo", "qwen3_coder"),
    // vLLM `deepseek_v41` (DeepSeekV41EngineToolParser), SGLang `deepseekv41`
    // (DeepSeekV41Detector): DSML with spaced tag names, `<｜DSML｜ calls>`, read by deepseek_v32
    ("deepseek_v41", "deepseek_v32"),
    ("deepseekv41", "deepseek_v32"),
    ("k2_horizon", "k2_v3"), // vLLM K2HorizonToolParser, SGLang K2V3Detector
    // SGLang `trinity` (TrinityDetector, Arcee Trinity): Qwen2.5's <tool_call>{…}</tool_call>;
    // it also reads calls inside <think>, which stay reasoning here (the design's rule)
    ("trinity", "hermes"),
    // vLLM HyperCLOVAXSeedThinkToolParser: GLM-4.5's <tool_call>NAME<arg_key>… after </think>;
    // HyperCLOVAXSeedThink14BToolParser: `-> tool/function_call` + JSON list (hyperclovax)
    ("hyperclovax_seed_think", "glm45"),
    ("hyperclovax_seed_think_14b", "hyperclovax"),
    // vLLM IquestCoderToolParser subclasses Qwen3CoderToolParser (whitespace fixes only);
    // SGLang IQuestQ1Detector reads iquest_coder_v2's pairs in <iquest_tool_call>
    ("iquest_coder", "qwen3_coder"),
    ("iquest_q1", "iquest_coder_v2"),
    ("qwen35coder", "qwen3_coder"), // Qwen35CoderToolParser: Qwen3-Coder's streaming, reworked
    // vLLM PanguToolParser / OpenPanguV2ToolParser: <|tool_call_start|>[{…}]<|tool_call_end|>,
    // LFM2's tokens around a JSON call list, which lfm2 reads
    ("pangu", "lfm2"),
    ("openpangu_v2", "lfm2"),
    ("solar_open2", "solar_open"), // vLLM SolarOpen2ToolParser
    // vLLM Spark3ToolParser: GLM-4.7's <tool_call>NAME<arg_key>…</arg_key><arg_value>… pairs
    ("spark3", "glm45"),
    ("step_audio_2", "step_audio2"), // vLLM StepAudio2ToolParser
];

/// The format id `name` is an alias of (case-insensitive).
fn alias_target(name: &str) -> Option<&'static str> {
    ALIASES
        .iter()
        .find(|(alias, _)| alias.eq_ignore_ascii_case(name))
        .map(|(_, target)| *target)
}

/// The protocols the engine knows, in auto-detect priority order.
#[derive(Clone)]
pub struct ProtocolSet {
    protocols: Vec<Arc<dyn Protocol>>,
    /// Built on first auto-detect: most uses name their format.
    detector: Arc<OnceLock<detect::Detector>>,
}

impl std::fmt::Debug for ProtocolSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.ids()).finish()
    }
}

impl Default for ProtocolSet {
    fn default() -> Self {
        Self::standard()
    }
}

impl ProtocolSet {
    /// Every protocol built into the engine, in auto-detect priority order (ties only).
    pub fn standard() -> Self {
        Self::from_protocols(vec![
            Arc::new(vcp::VcpProtocol),
            Arc::new(hermes::Hermes),
            Arc::new(mistral::Mistral),
            Arc::new(mistral_v11::MistralV11),
            Arc::new(llama3_json::Llama3Json),
            declared::builtin("granite"),
            declared::builtin("internlm2"),
            declared::builtin("jamba"),
            Arc::new(phi4_mini::Phi4Mini),
            Arc::new(xlam::Xlam),
            declared::builtin("functionary_v31"),
            Arc::new(functionary_v32::FunctionaryV32),
            Arc::new(command_r::CommandR),
            Arc::new(command_a::CommandA),
            Arc::new(nemotron_v2::NemotronV2),
            Arc::new(apertus::Apertus),
            Arc::new(gpt_oss::GptOss),
            declared::builtin("hunyuan"),
            Arc::new(minimax_m1::MinimaxM1),
            declared::builtin("granite_20b_fc"),
            declared::builtin("longcat"),
            Arc::new(pythonic::Pythonic),
            Arc::new(json_strict::JsonStrict),
            // After json_strict: a {"tool_calls": [...]} reply is both, with the same calls.
            Arc::new(llama_cpp_generic::LlamaCppGeneric),
            Arc::new(xml_tag::XmlTag),
            Arc::new(openai_chat::OpenAiChat),
            Arc::new(anthropic::Anthropic),
            Arc::new(openai_responses::OpenAiResponses),
            Arc::new(gemini::Gemini),
            // Before qwen3_coder: a Seed-OSS reply's <function=…> calls parse as both, and only
            // seed_oss knows <seed:think> is reasoning.
            Arc::new(seed_oss::SeedOss),
            Arc::new(qwen3_coder::Qwen3Coder),
            Arc::new(deepseek_v3::DeepSeekV3),
            Arc::new(deepseek_v31::DeepSeekV31),
            Arc::new(glm45::Glm45),
            Arc::new(kimi_k2::KimiK2),
            Arc::new(minimax_m2::MinimaxM2),
            Arc::new(step3::Step3),
            Arc::new(deepseek_v32::DeepSeekV32),
            Arc::new(lfm2::Lfm2),
            Arc::new(gemma::Gemma),
            Arc::new(gemma4::Gemma4),
            Arc::new(function_gemma::FunctionGemma),
            Arc::new(gigachat3::GigaChat3),
            Arc::new(olmo3::Olmo3),
            Arc::new(dots::Dots),
            // Its opener `<function name="` is also a hermes (llama.cpp) tag; hermes reads a JSON
            // body there and minicpm5_xml reports one, so the two never both find calls.
            Arc::new(minicpm5_xml::MiniCpm5Xml),
            Arc::new(inkling::Inkling),
            Arc::new(glimmer::Glimmer),
            // Hy3 / Hy4 share their tokens and tell each other apart by `<tool_sep>` (a call in
            // the other layout is an error), so their order decides nothing between them.
            Arc::new(hunyuan_v3::HunyuanV3),
            Arc::new(hunyuan_v4::HunyuanV4),
            // Shares <function_calls> with olmo3: each skips the other's body, so no tie.
            Arc::new(anthropic_xml::AnthropicXml),
            Arc::new(kimi_k3::KimiK3),
            Arc::new(minimax_m3::MinimaxM3),
            Arc::new(gigachat35::GigaChat35),
            // PLaMo 3, iQuest Coder V2, HyperCLOVA X 14B, Solar Open: markers no other
            // format writes.
            Arc::new(plamo3::Plamo3),
            Arc::new(iquest_coder_v2::IquestCoderV2),
            Arc::new(hyperclovax::HyperClovaX),
            Arc::new(solar_open::SolarOpen),
            // No markers, so never auto-detected: only read when named.
            Arc::new(granite_pythonic::GranitePythonic),
            // Its <tool_call> is hermes's, glm45's and qwen3_coder's, all listed earlier; a body
            // that is not `function\nNAME\n{…}` is an error here, so the two never both read one.
            Arc::new(step_audio2::StepAudio2),
            Arc::new(rwkv::Rwkv),
            Arc::new(cwm::Cwm),
            Arc::new(k2_v3::K2V3),
            // Its <tool_call> is hermes's, qwen3_coder's and glm45's, all listed earlier: they win
            // a tie, so it answers only replies they reject (`name>{…}`).
            Arc::new(glm53_flash::Glm53Flash),
            declared::builtin("lmstudio"),
            Arc::new(glaive::Glaive),
            Arc::new(chatglm3::ChatGlm3),
            // A name line over JSON is weak evidence: any format listed earlier wins a tie.
            Arc::new(glm4_chat::Glm4Chat),
            Arc::new(gorilla_openfunctions::GorillaOpenFunctions),
            Arc::new(qwen_agent::QwenAgent),
            Arc::new(functionary_v2::FunctionaryV2),
            Arc::new(functionary_v2::llama3::FunctionaryV2Llama3),
            Arc::new(nexusraven::NexusRaven),
            // Coding agents' text protocols. A tool or parameter only one of Cline and Roo Code
            // knows decides between them (the other drops or reports it); a reply that uses
            // only names both know is a tie, which Cline, whose grammar Roo forked, wins.
            Arc::new(cline::Cline),
            Arc::new(cline::RooCode),
            Arc::new(continue_tool::ContinueTool),
            Arc::new(langchain::LangChainJson),
            Arc::new(langchain::LangChainXml),
            // Last: its labels are plain words, so any format with markers of its own wins a tie.
            Arc::new(react::React),
        ])
    }

    /// A set of these protocols, in auto-detect priority order.
    pub fn from_protocols(protocols: Vec<Arc<dyn Protocol>>) -> Self {
        Self {
            protocols,
            detector: Arc::default(),
        }
    }

    /// This set with `extra` formats after its own (they win no auto-detect ties). One whose
    /// id the set already has is left out: callers that read formats from files check
    /// [`ProtocolSet::get`] first, to tell the person which file clashes.
    pub fn extended(&self, extra: impl IntoIterator<Item = Arc<dyn Protocol>>) -> Self {
        let mut protocols = self.protocols.clone();
        for protocol in extra {
            if !protocols
                .iter()
                .any(|p| p.id().eq_ignore_ascii_case(protocol.id()))
            {
                protocols.push(protocol);
            }
        }
        Self::from_protocols(protocols)
    }

    /// The protocol `id` names (case-insensitive): a format id, or else a serving stack's name
    /// for one of them ([`ALIASES`]), so a corpus labelled by vLLM or SGLang parses as named.
    pub fn get(&self, id: &str) -> Option<Arc<dyn Protocol>> {
        let find = |id: &str| {
            self.protocols
                .iter()
                .find(|p| p.id().eq_ignore_ascii_case(id))
                .cloned()
        };
        find(id).or_else(|| find(alias_target(id)?))
    }

    /// The [`ALIASES`] whose format this set has, as (alias, format id).
    pub fn aliases(&self) -> Vec<(&'static str, &'static str)> {
        ALIASES
            .iter()
            .copied()
            .filter(|(alias, target)| {
                !self
                    .protocols
                    .iter()
                    .any(|p| p.id().eq_ignore_ascii_case(alias))
                    && self.protocols.iter().any(|p| p.id() == *target)
            })
            .collect()
    }

    pub fn ids(&self) -> Vec<&'static str> {
        self.protocols.iter().map(|p| p.id()).collect()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Arc<dyn Protocol>> {
        self.protocols.iter()
    }

    /// The protocols whose signature occurs in `text`, in priority order, each with how
    /// specific the evidence is (see [`detect::Detector::candidates`]).
    pub fn candidates(&self, text: &str) -> Vec<(Arc<dyn Protocol>, usize)> {
        let detector = self.detector.get_or_init(|| {
            let signatures: Vec<_> = self.protocols.iter().map(|p| p.signature()).collect();
            detect::Detector::new(&signatures)
        });
        detector
            .candidates(text)
            .into_iter()
            .filter_map(|(i, specificity)| Some((self.protocols.get(i).cloned()?, specificity)))
            .collect()
    }
}
