use serde_json::{json, Value};

use super::read::{read_call, read_value, MAX_DEPTH};
use super::write::{declaration, write_value};

const Q: &str = "<|\"|>";

fn args(body: &str) -> Value {
    Value::Object(read_call(body, Q).expect("reads").args)
}

#[test]
fn strings_numbers_booleans_and_nesting() {
    assert_eq!(
        args(
            r#"call:f{location:<|"|>Paris, France<|"|>,days:3,score:2.5,on:true,off:false,n:null}"#
        ),
        json!({"location": "Paris, France", "days": 3, "score": 2.5, "on": true, "off": false, "n": null})
    );
    assert_eq!(
        args(
            r#"call:f{nested:{inner:<|"|>value<|"|>},list:[<|"|>a<|"|>,<|"|>b<|"|>],deep:[[1,2],{k:[]}]}"#
        ),
        json!({"nested": {"inner": "value"}, "list": ["a", "b"], "deep": [[1, 2], {"k": []}]})
    );
    assert_eq!(
        args(r#"call:f{record_map:{<|"|>3<|"|>:<|"|>new text<|"|>}}"#),
        json!({"record_map": {"3": "new text"}})
    );
    assert_eq!(args("call:get_status{}"), json!({}));
}

#[test]
fn delimiters_inside_strings_are_text() {
    assert_eq!(
        args(
            r#"call:f{code:<|"|>if (a) { b[0] = "x, y"; }<|"|>,items:[<|"|>a]b<|"|>,<|"|>c<|"|>]}"#
        ),
        json!({"code": "if (a) { b[0] = \"x, y\"; }", "items": ["a]b", "c"]})
    );
}

#[test]
fn python_literals_and_loose_numbers() {
    assert_eq!(
        args("call:f{a:True,b:None,c:FALSE,d:108.,e:-2e3,f:nil}"),
        json!({"a": true, "b": null, "c": false, "d": 108.0, "e": -2000.0, "f": null})
    );
}

#[test]
fn names_separators_and_what_follows() {
    let call = read_call(
        r#" :call:weather.get-now{a:<|"|>x<|"|>b:<|"|>y<|"|>,,}<turn|>"#,
        Q,
    )
    .expect("reads");
    assert_eq!(call.name, "weather.get-now");
    assert_eq!(Value::Object(call.args), json!({"a": "x", "b": "y"}));
    assert_eq!(
        &r#" :call:weather.get-now{a:<|"|>x<|"|>b:<|"|>y<|"|>,,}<turn|>"#[call.end..],
        "<turn|>"
    );
}

#[test]
fn bare_text_and_repeated_keys_are_noted() {
    let call = read_call("call:f{unit:celsius,unit:kelvin}", Q).expect("reads");
    assert_eq!(Value::Object(call.args), json!({"unit": "kelvin"}));
    assert_eq!(call.notes.len(), 3);
}

#[test]
fn broken_calls_are_errors_never_panics() {
    for broken in [
        "",
        "get_weather{}",
        "call:{a:1}",
        "call:f",
        "call:f{a:<|\"|>cut off",
        "call:f{a:{b:1}",
        "call:f{a:[1,2}",
        "call:f{a:}",
        "call:f{:1}",
        "call:f{a 1}",
        "call:f{a:1",
        "call:f{é:[<|\"",
        "call:f{<|\"|>é",
    ] {
        assert!(read_call(broken, Q).is_err(), "{broken}");
    }
    let deep = format!(
        "call:f{{a:{}{}}}",
        "[".repeat(MAX_DEPTH + 5),
        "]".repeat(MAX_DEPTH + 5)
    );
    assert!(read_call(&deep, Q).is_err());
    let fine = format!("call:f{{a:{}{}}}", "[".repeat(10), "]".repeat(10));
    assert!(read_call(&fine, Q).is_ok());
}

#[test]
fn multibyte_text_everywhere() {
    assert_eq!(
        args(
            "call:f{città:<escape>Zürich<escape>,ключ:[1]}"
                .replace("<escape>", Q)
                .as_str()
        ),
        json!({"città": "Zürich", "ключ": [1]})
    );
    assert!(read_call("call:f{città é:1,", Q).is_err());
}

#[test]
fn values_write_and_read_back() {
    let value = json!({"b": [1, true, null, "x"], "a": {"k": "v, w"}, "c": 2.5});
    let mut text = String::new();
    write_value(&mut text, &value, Q, false);
    assert_eq!(
        text,
        r#"{a:{k:<|"|>v, w<|"|>},b:[1,true,null,<|"|>x<|"|>],c:2.5}"#
    );
    assert_eq!(read_value(&text, Q), Ok(value));
}

#[test]
fn declarations_follow_the_template() {
    let parameters = json!({
        "type": "object",
        "properties": {
            "location": {"type": "string", "description": "City"},
            "unit": {"type": "string", "enum": ["c", "f"]},
            "days": {"type": "integer"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "opts": {"type": "object", "properties": {"x": {"type": "boolean"}}, "required": ["x"]}
        },
        "required": ["location"]
    });
    assert_eq!(
        declaration("get_weather", "Weather now", &parameters, Q),
        concat!(
            r#"declaration:get_weather{description:<|"|>Weather now<|"|>,parameters:{properties:{"#,
            r#"days:{type:<|"|>INTEGER<|"|>},"#,
            r#"location:{description:<|"|>City<|"|>,type:<|"|>STRING<|"|>},"#,
            r#"opts:{properties:{x:{type:<|"|>BOOLEAN<|"|>}},required:[<|"|>x<|"|>],type:<|"|>OBJECT<|"|>},"#,
            r#"tags:{items:{type:<|"|>STRING<|"|>},type:<|"|>ARRAY<|"|>},"#,
            r#"unit:{enum:[<|"|>c<|"|>,<|"|>f<|"|>],type:<|"|>STRING<|"|>}},"#,
            r#"required:[<|"|>location<|"|>],type:<|"|>OBJECT<|"|>}}"#
        )
    );
}
