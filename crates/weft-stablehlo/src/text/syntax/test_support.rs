//! Shared by the custom-form unit tests: print a file in both forms and
//! check that each reads back as the same program.

use crate::text::{PrintOptions, parse, print};

/// Parses `text`, prints it in the custom and the generic form, checks that
/// both read back to the same custom text, and returns (custom, generic).
pub(crate) fn round_trip(text: &str) -> (String, String) {
    let body = parse(text).unwrap_or_else(|d| panic!("{}", d.render("input", text)));
    let custom = print(&body, &PrintOptions::default());
    let generic = print(
        &body,
        &PrintOptions {
            generic: true,
            ..Default::default()
        },
    );
    for printed in [&custom, &generic] {
        let again = parse(printed).unwrap_or_else(|d| panic!("{}", d.render("printed", printed)));
        assert_eq!(
            print(&again, &PrintOptions::default()),
            custom,
            "round trip of\n{printed}"
        );
    }
    (custom, generic)
}
