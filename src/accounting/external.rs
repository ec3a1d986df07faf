//! Events from other libraries: dp_accounting's `DpEvent` trees, as JSON.
//!
//! dp_accounting (anchors A.1) describes a mechanism by a tree of frozen `DpEvent` objects;
//! `event.to_named_tuple()` turns it into nested named tuples, and
//! `examples/external/dp_event_to_json.py` (standard library only) writes those as JSON: one
//! object per event, with `class_name`, optionally `module_name`, and the constructor's fields.
//! [`event_from_dp_accounting_json`] reads that JSON into a [`DpEvent`]:
//!
//! | dp_accounting class | fields | dpref event |
//! |---|---|---|
//! | `GaussianDpEvent` | `noise_multiplier` | `Gaussian` |
//! | `LaplaceDpEvent` | `noise_multiplier` | `Laplace` |
//! | `RandomizedResponseDpEvent` | `noise_parameter`, `num_buckets` | `RandomizedResponse` |
//! | `EpsilonDeltaDpEvent` | `epsilon`, `delta` | `EpsilonDelta` |
//! | `PoissonSampledDpEvent` | `sampling_probability`, `event` | `PoissonSampled` |
//! | `SampledWithoutReplacementDpEvent` | `source_dataset_size`, `sample_size`, `event` | `SampledWithoutReplacement` |
//! | `SampledWithReplacementDpEvent` | `source_dataset_size`, `sample_size`, `event` | `SampledWithReplacement` (no accountant covers it) |
//! | `SelfComposedDpEvent` | `event`, `count` | `SelfComposed` |
//! | `ComposedDpEvent` | `events` | `Composed` |
//! | `NoOpDpEvent` | — | `Composed([])` (the identity) |
//!
//! Refused by name ([`Error::UnsupportedEvent`]), never approximated: `NonPrivateDpEvent` (no
//! finite ε), `UnsupportedDpEvent`, `ZCDpEvent` (a guarantee, not a mechanism: it has no lower
//! bound, and no dpref accountant composes it yet), every other dp_accounting class
//! (`DiscreteGaussianDpEvent`, `ExponentialMechanismDpEvent`, ...) and any unknown class.
//!
//! The sensitivity convention is dp_accounting's and dpref's alike: a `GaussianDpEvent`'s
//! multiplier is relative to the sensitivity under the relation the accountant is asked about.
//!
//! Hostile input is an error, never a panic or a guess: non-JSON, NaN/∞ (not JSON; Python's
//! `NaN` token is refused by the parser), nesting deeper than [`MAX_DEPTH`] events, unknown or
//! missing fields, wrong types, counts that are not whole numbers in `1..=u64::MAX`, and
//! parameters outside their ranges (each named with its location, `$.events[1].event`).

use super::event::{DpEvent, check_randomized_response};
use crate::error::{Error, Result};
use serde_json::{Map, Value};

/// The deepest nesting of events accepted (a guard against stack exhaustion; dp_accounting trees
/// of real runs are a few levels deep).
pub const MAX_DEPTH: usize = 64;

/// The largest input accepted, in bytes (64 MiB).
pub const MAX_BYTES: usize = 64 << 20;

/// dp_accounting classes dpref knows and refuses, with the reason.
const REFUSED: &[(&str, &str)] = &[
    ("NonPrivateDpEvent", "the mechanism is not differentially private: its epsilon is infinite at every delta < 1"),
    ("UnsupportedDpEvent", "dp_accounting itself marks this mechanism as one no accountant supports"),
    (
        "ZCDpEvent",
        "a zCDP guarantee describes no mechanism: it has no certified lower bound and no dpref accountant composes \
         it yet; describe the mechanism itself (e.g. GaussianDpEvent)",
    ),
    ("DiscreteGaussianDpEvent", "no dpref accountant for the discrete Gaussian mechanism yet"),
    ("DiscreteLaplaceDpEvent", "no dpref accountant for the discrete Laplace mechanism yet"),
    ("ExponentialMechanismDpEvent", "no dpref accountant for the exponential mechanism yet"),
    ("PermuteAndFlipDpEvent", "no dpref accountant for permute-and-flip yet"),
    ("MixtureOfGaussiansDpEvent", "no dpref accountant for mixtures of Gaussians yet"),
    ("RepeatAndSelectDpEvent", "no dpref accountant for repeat-and-select yet"),
    ("SingleEpochTreeAggregationDpEvent", "no dpref accountant for tree aggregation yet"),
    ("TruncatedSubsampledGaussianDpEvent", "no dpref accountant for truncated Poisson subsampling yet"),
    ("RandomAllocationDpEvent", "no dpref accountant for random allocation yet"),
];

/// Reads a dp_accounting event tree from its JSON text (`source` names the input in errors, e.g.
/// the file path).
///
/// # Errors
/// `Data` (naming `source` and the location) for input that is not such JSON; `UnsupportedEvent`
/// for a class dpref cannot bound; parameter range errors are `Data` with the location.
pub fn event_from_dp_accounting_json(text: &str, source: &str) -> Result<DpEvent> {
    if text.len() > MAX_BYTES {
        return Err(data(source, "$", format!("{} bytes, more than the {MAX_BYTES} accepted", text.len())));
    }
    let value: Value =
        serde_json::from_str(text).map_err(|e| data(source, "$", format!("not JSON of a dp_accounting event: {e}")))?;
    event_from_dp_accounting_value(&value, source)
}

/// [`event_from_dp_accounting_json`] on parsed JSON.
///
/// # Errors
/// As [`event_from_dp_accounting_json`].
pub fn event_from_dp_accounting_value(value: &Value, source: &str) -> Result<DpEvent> {
    Reader { source }.event(value, "$", 0)
}

fn data(source: &str, location: &str, reason: impl std::fmt::Display) -> Error {
    Error::Data { path: source.to_string(), reason: format!("at {location}: {reason}") }
}

struct Reader<'a> {
    source: &'a str,
}

impl Reader<'_> {
    fn err(&self, location: &str, reason: impl std::fmt::Display) -> Error {
        data(self.source, location, reason)
    }

    fn event(&self, value: &Value, at: &str, depth: usize) -> Result<DpEvent> {
        if depth >= MAX_DEPTH {
            return Err(self.err(at, format!("events nested more than {MAX_DEPTH} deep")));
        }
        let obj =
            value.as_object().ok_or_else(|| self.err(at, format!("expected an event object, got {}", kind(value))))?;
        let class = match obj.get("class_name") {
            Some(Value::String(s)) => s.as_str(),
            Some(v) => return Err(self.err(at, format!("class_name must be a string, got {}", kind(v)))),
            None => return Err(self.err(at, "no class_name (expected a dp_accounting event object)")),
        };
        if let Some(m) = obj.get("module_name").filter(|m| !m.is_string()) {
            return Err(self.err(at, format!("module_name must be a string, got {}", kind(m))));
        }
        let fields = Fields { reader: self, obj, at, class };
        let built = match class {
            "GaussianDpEvent" => {
                fields.only(&["noise_multiplier"])?;
                DpEvent::gaussian(fields.float("noise_multiplier")?)
            }
            "LaplaceDpEvent" => {
                fields.only(&["noise_multiplier"])?;
                DpEvent::laplace(fields.float("noise_multiplier")?)
            }
            "RandomizedResponseDpEvent" => {
                fields.only(&["noise_parameter", "num_buckets"])?;
                let (p, k) = (fields.float("noise_parameter")?, fields.whole("num_buckets")?);
                check_randomized_response(p, k)
                    .map(|()| DpEvent::RandomizedResponse { noise_parameter: p, num_buckets: k })
            }
            "EpsilonDeltaDpEvent" => {
                fields.only(&["epsilon", "delta"])?;
                DpEvent::epsilon_delta(fields.float("epsilon")?, fields.float("delta")?)
            }
            "PoissonSampledDpEvent" => {
                fields.only(&["sampling_probability", "event"])?;
                let q = fields.float("sampling_probability")?;
                let inner = fields.event("event", depth)?;
                DpEvent::poisson_sampled(q, inner)
            }
            "SampledWithoutReplacementDpEvent" | "SampledWithReplacementDpEvent" => {
                fields.only(&["source_dataset_size", "sample_size", "event"])?;
                let (n, b) = (fields.whole("source_dataset_size")?, fields.whole("sample_size")?);
                let inner = fields.event("event", depth)?;
                if class == "SampledWithoutReplacementDpEvent" {
                    DpEvent::sampled_without_replacement(n, b, inner)
                } else {
                    DpEvent::sampled_with_replacement(n, b, inner)
                }
            }
            "SelfComposedDpEvent" => {
                fields.only(&["event", "count"])?;
                let count = fields.whole("count")?;
                let inner = fields.event("event", depth)?;
                DpEvent::self_composed(inner, count)
            }
            "ComposedDpEvent" => {
                fields.only(&["events"])?;
                let list = match obj.get("events") {
                    Some(Value::Array(a)) => a,
                    Some(v) => {
                        return Err(self.err(at, format!("ComposedDpEvent.events must be a list, got {}", kind(v))));
                    }
                    None => return Err(self.err(at, "ComposedDpEvent has no field events")),
                };
                let events = list
                    .iter()
                    .enumerate()
                    .map(|(i, e)| self.event(e, &format!("{at}.events[{i}]"), depth + 1))
                    .collect::<Result<Vec<_>>>()?;
                Ok(DpEvent::Composed(events))
            }
            "NoOpDpEvent" => {
                fields.only(&[])?;
                Ok(DpEvent::Composed(Vec::new()))
            }
            other => {
                let reason = REFUSED.iter().find(|(c, _)| *c == other).map_or(
                    "not a dp_accounting event class that dpref reads (see the table in dpref::accounting::external)",
                    |(_, r)| r,
                );
                return Err(Error::UnsupportedEvent {
                    class_name: truncate(other),
                    location: at.to_string(),
                    reason: reason.to_string(),
                });
            }
        };
        built.map_err(|e| match e {
            Error::InvalidParameter { .. } => self.err(at, format!("{class}: {e}")),
            other => other,
        })
    }
}

/// A class name for a message, cut to 80 characters (hostile input may be long).
fn truncate(s: &str) -> String {
    if s.chars().count() <= 80 { s.to_string() } else { format!("{}...", s.chars().take(80).collect::<String>()) }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// The fields of one event object.
struct Fields<'a> {
    reader: &'a Reader<'a>,
    obj: &'a Map<String, Value>,
    at: &'a str,
    class: &'a str,
}

impl Fields<'_> {
    /// Refuses any field other than `allowed`, `class_name` and `module_name`.
    fn only(&self, allowed: &[&str]) -> Result<()> {
        for key in self.obj.keys() {
            if key != "class_name" && key != "module_name" && !allowed.contains(&key.as_str()) {
                return Err(self.reader.err(
                    self.at,
                    format!(
                        "unknown field {:?} for {} (its fields: {})",
                        truncate(key),
                        self.class,
                        allowed.join(", ")
                    ),
                ));
            }
        }
        Ok(())
    }

    fn get(&self, name: &str) -> Result<&Value> {
        self.obj.get(name).ok_or_else(|| self.reader.err(self.at, format!("{} has no field {name}", self.class)))
    }

    /// A real-valued field (a JSON number; JSON has no NaN or infinity).
    fn float(&self, name: &str) -> Result<f64> {
        match self.get(name)? {
            Value::Number(n) => match n.as_f64() {
                Some(x) if x.is_finite() => Ok(x),
                _ => Err(self.reader.err(self.at, format!("{}.{name} = {n} is not a finite number", self.class))),
            },
            v => Err(self.reader.err(self.at, format!("{}.{name} must be a number, got {}", self.class, kind(v)))),
        }
    }

    /// A whole-number field in 0..=u64::MAX (written as an integer, or a float that is exactly
    /// one, as Python may write `100.0`).
    fn whole(&self, name: &str) -> Result<u64> {
        let bad = |what: String| self.reader.err(self.at, format!("{}.{name} {what}", self.class));
        match self.get(name)? {
            Value::Number(n) => {
                if let Some(k) = n.as_u64() {
                    return Ok(k);
                }
                match n.as_f64() {
                    // 2^64 is the first float above u64::MAX.
                    Some(x) if (0.0..18_446_744_073_709_551_616.0).contains(&x) && x.fract() == 0.0 => Ok(x as u64),
                    _ => Err(bad(format!("= {n} is not a whole number in 0..=18446744073709551615"))),
                }
            }
            v => Err(bad(format!("must be a whole number, got {}", kind(v)))),
        }
    }

    /// The nested event of a wrapper.
    fn event(&self, name: &str, depth: usize) -> Result<DpEvent> {
        let v = self.get(name)?;
        self.reader.event(v, &format!("{}.{name}", self.at), depth + 1)
    }
}
