//! The functions and constants an expression may name, their arities, and how each is
//! computed (angles, domains and factorials included).

use std::f64::consts::{E, PI, TAU};

use super::parser::Parser;
use super::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Func {
    Sqrt,
    Cbrt,
    Abs,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Atan2,
    Ln,
    Log10,
    Log,
    Exp,
    Floor,
    Ceil,
    Round,
    Trunc,
    Min,
    Max,
    Hypot,
    Fact,
}

pub(super) const FUNCTIONS: [(&str, Func); 22] = [
    ("sqrt", Func::Sqrt),
    ("cbrt", Func::Cbrt),
    ("abs", Func::Abs),
    ("sin", Func::Sin),
    ("cos", Func::Cos),
    ("tan", Func::Tan),
    ("asin", Func::Asin),
    ("acos", Func::Acos),
    ("atan", Func::Atan),
    ("atan2", Func::Atan2),
    ("ln", Func::Ln),
    ("log10", Func::Log10),
    ("log", Func::Log),
    ("exp", Func::Exp),
    ("floor", Func::Floor),
    ("ceil", Func::Ceil),
    ("round", Func::Round),
    ("trunc", Func::Trunc),
    ("min", Func::Min),
    ("max", Func::Max),
    ("hypot", Func::Hypot),
    ("fact", Func::Fact),
];

pub(super) const CONSTANTS: [(&str, f64); 3] = [("pi", PI), ("e", E), ("tau", TAU)];

/// Names of the built-in functions (matched case-insensitively, like the constants).
pub fn function_names() -> impl Iterator<Item = &'static str> {
    FUNCTIONS.iter().map(|(name, _)| *name)
}

/// Names of the built-in constants.
pub fn constant_names() -> impl Iterator<Item = &'static str> {
    CONSTANTS.iter().map(|(name, _)| *name)
}

pub(super) fn lookup_function(name: &str) -> Option<Func> {
    FUNCTIONS
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, f)| *f)
}

pub(super) fn lookup_constant(name: &str) -> Option<f64> {
    CONSTANTS
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| *v)
}

/// Minimum and maximum (None: unbounded) argument counts.
pub(super) fn arity(f: Func) -> (usize, Option<usize>) {
    match f {
        Func::Atan2 => (2, Some(2)),
        Func::Log | Func::Round => (1, Some(2)),
        Func::Min | Func::Max => (1, None),
        Func::Hypot => (2, None),
        _ => (1, Some(1)),
    }
}

pub(super) fn arity_message(name: &str, f: Func, got: usize) -> String {
    let plural = |n: usize| if n == 1 { "argument" } else { "arguments" };
    let expected = match arity(f) {
        (min, Some(max)) if min == max => format!("{min} {}", plural(min)),
        (min, Some(max)) => format!("{min} or {max} arguments"),
        (min, None) => format!("at least {min} {}", plural(min)),
    };
    format!("expected {expected} to {name}, got {got}")
}

impl Parser<'_> {
    pub(super) fn apply(&mut self, func: Func, name: &str, args: &[f64], offset: usize) -> f64 {
        let x = args.first().copied().unwrap_or(f64::NAN);
        let second = args.get(1).copied();
        let degrees = self.options.angle_unit == AngleUnit::Degrees;
        let angle_out = |radians: f64| {
            if degrees {
                radians.to_degrees()
            } else {
                radians
            }
        };
        match func {
            Func::Sqrt => {
                if x < 0.0 {
                    self.fault(format!("sqrt of a negative number ({})", show(x)), offset);
                }
                x.sqrt()
            }
            Func::Cbrt => x.cbrt(),
            Func::Abs => x.abs(),
            Func::Sin | Func::Cos | Func::Tan => self.trig(func, x, offset),
            Func::Asin | Func::Acos => {
                if !(-1.0..=1.0).contains(&x) {
                    self.fault(
                        format!("{name} is defined from -1 to 1, got {}", show(x)),
                        offset,
                    );
                }
                angle_out(if func == Func::Asin {
                    x.asin()
                } else {
                    x.acos()
                })
            }
            Func::Atan => angle_out(x.atan()),
            Func::Atan2 => angle_out(x.atan2(second.unwrap_or(f64::NAN))),
            Func::Ln | Func::Log10 | Func::Log => {
                if x <= 0.0 {
                    self.fault(
                        format!("{name} of a non-positive number ({})", show(x)),
                        offset,
                    );
                }
                match (func, second) {
                    (Func::Ln, _) => x.ln(),
                    (_, None | Some(10.0)) => x.log10(),
                    (_, Some(2.0)) => x.log2(),
                    (_, Some(base)) => {
                        if base <= 0.0 || base == 1.0 {
                            self.fault(
                                format!("log base must be positive and not 1, got {}", show(base)),
                                offset,
                            );
                        }
                        x.ln() / base.ln()
                    }
                }
            }
            Func::Exp => x.exp(),
            Func::Floor => x.floor(),
            Func::Ceil => x.ceil(),
            Func::Trunc => x.trunc(),
            Func::Round => match second {
                None => x.round(),
                Some(digits) => {
                    if digits.fract() != 0.0 || !(-15.0..=15.0).contains(&digits) {
                        self.fault(
                            format!(
                                "round digits must be an integer from -15 to 15, got {}",
                                show(digits)
                            ),
                            offset,
                        );
                        return f64::NAN;
                    }
                    if x.abs() >= 4_503_599_627_370_496.0 {
                        return x; // 2^52: already an integer
                    }
                    let scale = 10f64.powi(digits as i32);
                    (x * scale).round() / scale
                }
            },
            Func::Min => args.iter().copied().fold(f64::INFINITY, f64::min),
            Func::Max => args.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            Func::Hypot => args.iter().skip(1).fold(x, |acc, v| acc.hypot(*v)),
            Func::Fact => self.factorial(x, offset),
        }
    }

    /// sin, cos and tan. In degrees, multiples of 90 are exact (sin(180) is 0, not 1.2e-16).
    pub(super) fn trig(&mut self, func: Func, x: f64, offset: usize) -> f64 {
        let radians = if self.options.angle_unit == AngleUnit::Degrees {
            let turn = x.rem_euclid(360.0);
            if turn % 90.0 == 0.0 {
                let quadrant = (turn / 90.0) as u8 % 4;
                return match (func, quadrant) {
                    (Func::Sin, 0 | 2) | (Func::Cos, 1 | 3) | (Func::Tan, 0 | 2) => 0.0,
                    (Func::Sin, 1) | (Func::Cos, 0) => 1.0,
                    (Func::Sin, _) | (Func::Cos, _) => -1.0,
                    _ => {
                        self.fault(format!("tan is undefined at {} degrees", show(x)), offset);
                        f64::NAN
                    }
                };
            }
            x.to_radians()
        } else {
            x
        };
        match func {
            Func::Sin => radians.sin(),
            Func::Cos => radians.cos(),
            _ => radians.tan(),
        }
    }

    pub(super) fn factorial(&mut self, n: f64, offset: usize) -> f64 {
        if n.fract() != 0.0 || !(0.0..=170.0).contains(&n) {
            self.fault(
                format!(
                    "factorial is defined for integers from 0 to 170, got {}",
                    show(n)
                ),
                offset,
            );
            return f64::NAN;
        }
        (2..=n as u32).fold(1.0, |acc, k| acc * f64::from(k))
    }
}
