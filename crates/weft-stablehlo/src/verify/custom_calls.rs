//! `stablehlo.custom_call`'s attributes: `api_version` is one of the
//! dialect's `CustomCallApiVersion` values (0 `API_VERSION_UNSPECIFIED`,
//! valid StableHLO that no HLO says, so the lowering refuses it; 1
//! `API_VERSION_ORIGINAL`, 2
//! `API_VERSION_STATUS_RETURNING`, 3 `API_VERSION_STATUS_RETURNING_UNIFIED`,
//! 4 `API_VERSION_TYPED_FFI`), and `backend_config` is a dictionary exactly
//! when the version is the typed FFI's (a string otherwise), as the
//! dialect's verifier requires. A value outside the enum would lower to an
//! HLO `api_version` no HLO reader accepts.

use crate::ir::{Attribute, Op, dialect_attr::enum_keyword};
use crate::ops::OpKind;
use crate::verify::Checker;

/// The API versions, by number.
const VERSIONS: [&str; 5] = [
    "API_VERSION_UNSPECIFIED",
    "API_VERSION_ORIGINAL",
    "API_VERSION_STATUS_RETURNING",
    "API_VERSION_STATUS_RETURNING_UNIFIED",
    "API_VERSION_TYPED_FFI",
];

/// The typed FFI's version.
const TYPED_FFI: usize = 4;

pub(super) fn check(cx: &mut Checker, ops: &[Op]) {
    for &op in ops {
        if cx.body.ops[op].name.kind() != Some(OpKind::CustomCall) {
            continue;
        }
        let attribute = cx.body.attribute(op, "api_version");
        let version = match attribute {
            None => Some(1),
            Some(value) => match (
                value.as_integer(),
                enum_keyword(Some(value), "custom_call_api_version"),
            ) {
                (Some(number), _) => usize::try_from(number).ok().filter(|&n| n < VERSIONS.len()),
                (None, Some(keyword)) => VERSIONS.iter().position(|&v| v == keyword),
                (None, None) => None,
            },
        };
        let Some(version) = version else {
            cx.report(op, "attribute 'api_version' failed to satisfy constraint: the custom call API version must be 0 to 4")
                .with_hint(format!(
                    "the versions are {}",
                    VERSIONS
                        .iter()
                        .enumerate()
                        .map(|(number, name)| format!("{number} ({name})"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            continue;
        };
        match cx.body.attribute(op, "backend_config") {
            Some(Attribute::Dictionary(_)) if version != TYPED_FFI => {
                cx.report(op, "backend_config for api_version other than 4 (API_VERSION_TYPED_FFI) must be a string")
                    .with_hint("write the configuration as a string, or set api_version = 4 : i32");
            }
            Some(Attribute::String(_)) if version == TYPED_FFI => {
                cx.report(op, "backend_config for api_version 4 (API_VERSION_TYPED_FFI) must be a dictionary attribute")
                    .with_hint("write it as `backend_config = {key = value}`");
            }
            _ => {}
        }
    }
}
