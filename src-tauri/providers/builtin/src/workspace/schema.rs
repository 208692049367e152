//! The workspace methods as a model and the forms see them: schemas with defaults, enums and
//! nested objects, and each method's output schema.

use serde_json::{json, Value};
use toolscope_protocol::method::{Annotations, MethodMetadata};

use super::{DEFAULT_MAX_BYTES, DEFAULT_MAX_ENTRIES, MAX_BYTES_LIMIT, MAX_ENTRIES_LIMIT};

fn method(
    name: &str,
    description: &str,
    parameters: Value,
    annotations: Annotations,
    output_schema: Value,
) -> MethodMetadata {
    MethodMetadata {
        name: name.to_owned(),
        description: description.to_owned(),
        parameters,
        agent_callable: true,
        protocol_config: None,
        annotations,
        output_schema: Some(output_schema),
    }
}

fn read_only() -> Annotations {
    Annotations {
        read_only: Some(true),
        destructive: Some(false),
        idempotent: Some(true),
        open_world: Some(false),
    }
}

pub(super) fn list_meta() -> MethodMetadata {
    method(
        "list",
        "List the entries of a directory in the workspace, optionally recursively. Entries are \
         sorted by path; symbolic links are listed but never entered.",
        json!({
            "type": "object",
            "properties": {
                "path": {
                    "type": "string",
                    "description": "Directory to list, relative to the workspace root.",
                    "default": "."
                },
                "recursive": {
                    "type": "boolean",
                    "description": "Also list everything inside subdirectories.",
                    "default": false
                },
                "maxEntries": {
                    "type": "integer",
                    "description": "Stop after this many entries; the result then says truncated.",
                    "minimum": 1,
                    "maximum": MAX_ENTRIES_LIMIT,
                    "default": DEFAULT_MAX_ENTRIES
                },
                "include": {
                    "type": "object",
                    "description": "Which entries to include.",
                    "properties": {
                        "hidden": {
                            "type": "boolean",
                            "description": "Include entries whose name starts with '.'.",
                            "default": false
                        },
                        "extensions": {
                            "type": "array",
                            "description": "Only list files with one of these extensions, \
                                            without the dot (\"rs\", \"tar.gz\"). Directories \
                                            are always listed. Empty or absent: every file.",
                            "items": { "type": "string", "minLength": 1 },
                            "uniqueItems": true,
                            "default": []
                        }
                    },
                    "additionalProperties": false
                }
            },
            "additionalProperties": false
        }),
        read_only(),
        json!({
            "type": "object",
            "properties": {
                "path": { "type": "string" },
                "entries": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "path": { "type": "string", "description": "Relative to the workspace root, '/' separated." },
                            "kind": { "type": "string", "enum": ["file", "dir", "symlink"] },
                            "size": { "type": ["integer", "null"], "description": "Bytes, for files." }
                        },
                        "required": ["path", "kind", "size"]
                    }
                },
                "truncated": { "type": "boolean" }
            },
            "required": ["path", "entries", "truncated"]
        }),
    )
}

pub(super) fn read_meta() -> MethodMetadata {
    method(
        "read",
        "Read a UTF-8 text file from the workspace, whole or a range of lines.",
        json!({
            "type": "object",
            "properties": {
                "path": {
                    "type": "string",
                    "description": "File to read, relative to the workspace root.",
                    "minLength": 1
                },
                "range": {
                    "type": "object",
                    "description": "Only return these lines (1-based, inclusive).",
                    "properties": {
                        "startLine": {
                            "type": "integer",
                            "description": "First line to return.",
                            "minimum": 1,
                            "default": 1
                        },
                        "endLine": {
                            "type": "integer",
                            "description": "Last line to return. Absent: to the end of the file.",
                            "minimum": 1
                        }
                    },
                    "additionalProperties": false
                },
                "maxBytes": {
                    "type": "integer",
                    "description": "Return at most this many bytes of content; the result then \
                                    says truncated.",
                    "minimum": 1,
                    "maximum": MAX_BYTES_LIMIT,
                    "default": DEFAULT_MAX_BYTES
                }
            },
            "required": ["path"],
            "additionalProperties": false
        }),
        read_only(),
        json!({
            "type": "object",
            "properties": {
                "path": { "type": "string" },
                "content": { "type": "string" },
                "lines": { "type": "integer", "description": "Number of lines in content." },
                "truncated": { "type": "boolean" }
            },
            "required": ["path", "content", "lines", "truncated"]
        }),
    )
}

pub(super) fn write_meta() -> MethodMetadata {
    method(
        "write",
        "Write a text file in the workspace: create a new file, replace one, or append to one.",
        json!({
            "type": "object",
            "properties": {
                "path": {
                    "type": "string",
                    "description": "File to write, relative to the workspace root.",
                    "minLength": 1
                },
                "content": {
                    "type": "string",
                    "description": "Text to write."
                },
                "mode": {
                    "type": "string",
                    "description": "create: fail if the file exists. overwrite: replace the \
                                    file atomically (or create it). append: add to the end (or \
                                    create it).",
                    "enum": ["create", "overwrite", "append"],
                    "default": "create"
                },
                "createDirs": {
                    "type": "boolean",
                    "description": "Create missing parent directories.",
                    "default": false
                }
            },
            "required": ["path", "content"],
            "additionalProperties": false
        }),
        Annotations {
            read_only: Some(false),
            destructive: Some(false),
            idempotent: Some(false),
            open_world: Some(false),
        },
        json!({
            "type": "object",
            "properties": {
                "path": { "type": "string" },
                "bytesWritten": { "type": "integer" },
                "created": { "type": "boolean", "description": "True if the file did not exist before." }
            },
            "required": ["path", "bytesWritten", "created"]
        }),
    )
}

pub(super) fn delete_meta() -> MethodMetadata {
    method(
        "delete",
        "Delete a file, a symbolic link (never its target) or a directory in the workspace. \
         Cannot be undone.",
        json!({
            "type": "object",
            "properties": {
                "path": {
                    "type": "string",
                    "description": "Entry to delete, relative to the workspace root.",
                    "minLength": 1
                },
                "recursive": {
                    "type": "boolean",
                    "description": "Required to delete a directory that is not empty, with \
                                    everything in it.",
                    "default": false
                }
            },
            "required": ["path"],
            "additionalProperties": false
        }),
        Annotations {
            read_only: Some(false),
            destructive: Some(true),
            idempotent: Some(true),
            open_world: Some(false),
        },
        json!({
            "type": "object",
            "properties": {
                "path": { "type": "string" },
                "kind": { "type": "string", "enum": ["file", "dir", "symlink"] },
                "deleted": { "type": "boolean" }
            },
            "required": ["path", "kind", "deleted"]
        }),
    )
}
