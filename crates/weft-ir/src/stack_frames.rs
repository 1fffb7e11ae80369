//! The stack-frame tables a module may carry before its computations
//! (`FileNames`, `FunctionNames`, `FileLocations`, `StackFrames`); instruction
//! metadata refers to them by `stack_frame_id`.
//!
//! Ids are 1-based as in text; each table keeps the ids it was given, in order.

/// One `FileLocations` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileLocation {
    /// Id of the file name in [`StackFrames::file_names`].
    pub file_name_id: i64,
    /// Id of the function name in [`StackFrames::function_names`].
    pub function_name_id: i64,
    /// First line.
    pub line: i64,
    /// Last line.
    pub end_line: i64,
    /// First column.
    pub column: i64,
    /// Last column.
    pub end_column: i64,
}

/// One `StackFrames` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StackFrame {
    /// Id of the location in [`StackFrames::file_locations`].
    pub file_location_id: i64,
    /// Id of the calling frame (0 for none).
    pub parent_frame_id: i64,
}

/// The four tables.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StackFrames {
    /// `(id, file name)`.
    pub file_names: Vec<(i64, String)>,
    /// `(id, function name)`.
    pub function_names: Vec<(i64, String)>,
    /// `(id, location)`.
    pub file_locations: Vec<(i64, FileLocation)>,
    /// `(id, frame)`.
    pub frames: Vec<(i64, StackFrame)>,
}
