//! Source locations as MLIR writes them (`loc(…)`): unknown, names, file ranges,
//! call sites, fused locations, and references to location aliases (`#loc3`)
//! whose definitions the [`Body`](crate::ir::Body) keeps in source order, so a
//! printed module keeps its debug information exactly.

/// A location.
#[derive(Clone, Debug, PartialEq)]
pub enum Location {
    /// `unknown`.
    Unknown,
    /// `#loc3`: an alias defined at the top or bottom of the file.
    Alias(String),
    /// `"file.py":3:7` or `"file.py":3:7 to 4:2` / `to :12`.
    FileLineCol {
        /// The file name.
        file: String,
        /// 1-based line.
        line: u64,
        /// 1-based column.
        col: u64,
        /// The end of a range: `(line, col)`, where a missing line means the
        /// start line.
        end: Option<(Option<u64>, u64)>,
    },
    /// `"name"` or `"name"(child)`.
    Name {
        /// The name.
        name: String,
        /// The location it names, if any.
        child: Option<Box<Location>>,
    },
    /// `callsite(callee at caller)`.
    CallSite {
        /// Where the called code is.
        callee: Box<Location>,
        /// Where the call is.
        caller: Box<Location>,
    },
    /// `fused<metadata>[a, b, …]`.
    Fused {
        /// The metadata attribute, kept as its text.
        metadata: Option<String>,
        /// The fused locations.
        locations: Vec<Location>,
    },
}

/// Where a location alias definition was written.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AliasPlacement {
    /// Before the module.
    Top,
    /// After the module (MLIR prints deferred location aliases there).
    Bottom,
}

/// `#name = loc(…)`.
#[derive(Clone, Debug, PartialEq)]
pub struct LocationAlias {
    /// The alias name without `#`.
    pub name: String,
    /// What it stands for.
    pub location: Location,
    /// Where it is printed.
    pub placement: AliasPlacement,
}
