//! Locations in MLIR text (`loc(…)` and `#alias = loc(…)`), parse and print side
//! by side.

use crate::ir::Location;
use crate::text::attributes::print_string;
use crate::text::cursor::PResult;
use crate::text::parser::Parser;

impl Parser<'_> {
    /// An optional trailing `loc(…)`.
    pub(crate) fn parse_optional_location(&mut self) -> PResult<Option<Location>> {
        if self.c.peek_identifier() != Some("loc") {
            return Ok(None);
        }
        self.c.identifier();
        self.c.expect(b'(', "'(' after 'loc'")?;
        let location = self.parse_location_body()?;
        self.c.expect(b')', "')' to close the location")?;
        Ok(Some(location))
    }

    /// What is inside `loc(…)`, one nesting level down (call sites, fused
    /// and named locations hold locations).
    pub(crate) fn parse_location_body(&mut self) -> PResult<Location> {
        self.nested(Self::parse_location_body_unnested)
    }

    fn parse_location_body_unnested(&mut self) -> PResult<Location> {
        match self.c.peek() {
            b'#' => {
                let start = self.c.pos;
                self.c.eat(b'#');
                let name = self
                    .c
                    .suffix_name()
                    .ok_or_else(|| self.c.error_at(start, "expected a location alias name"))?;
                Ok(Location::Alias(name.to_string()))
            }
            b'"' => {
                let text = self.c.string()?;
                if self.c.peek() == b':' && self.c.peek_second().is_ascii_digit() {
                    self.c.eat(b':');
                    let line = self.c.integer()? as u64;
                    self.c.expect(b':', "':' and a column")?;
                    let col = self.c.integer()? as u64;
                    let end = if self.c.eat_keyword("to") {
                        if self.c.eat(b':') {
                            Some((None, self.c.integer()? as u64))
                        } else {
                            let end_line = self.c.integer()? as u64;
                            self.c.expect(b':', "':' and a column")?;
                            Some((Some(end_line), self.c.integer()? as u64))
                        }
                    } else {
                        None
                    };
                    return Ok(Location::FileLineCol {
                        file: text,
                        line,
                        col,
                        end,
                    });
                }
                let child = if self.c.eat(b'(') {
                    let child = self.parse_location_body()?;
                    self.c.expect(b')', "')'")?;
                    Some(Box::new(child))
                } else {
                    None
                };
                Ok(Location::Name { name: text, child })
            }
            _ => {
                if self.c.eat_keyword("unknown") {
                    return Ok(Location::Unknown);
                }
                if self.c.eat_keyword("callsite") {
                    self.c.expect(b'(', "'(' after 'callsite'")?;
                    let callee = self.parse_location_body()?;
                    self.c.expect_keyword("at")?;
                    let caller = self.parse_location_body()?;
                    self.c.expect(b')', "')'")?;
                    return Ok(Location::CallSite {
                        callee: Box::new(callee),
                        caller: Box::new(caller),
                    });
                }
                if self.c.eat_keyword("fused") {
                    let metadata = if self.c.peek() == b'<' {
                        let start = self.c.pos;
                        self.c.eat(b'<');
                        Some(self.c.balanced(start)?.to_string())
                    } else {
                        None
                    };
                    self.c.expect(b'[', "'[' after 'fused'")?;
                    let mut locations = Vec::new();
                    if !self.c.eat(b']') {
                        loop {
                            locations.push(self.parse_location_body()?);
                            if self.c.eat(b']') {
                                break;
                            }
                            self.c.expect(b',', "',' or ']'")?;
                        }
                    }
                    return Ok(Location::Fused {
                        metadata,
                        locations,
                    });
                }
                Err(self.c.error_expected("a location"))
            }
        }
    }
}

/// Appends ` loc(…)`.
pub fn print_trailing_location(out: &mut String, location: &Location) {
    out.push_str(" loc(");
    print_location_body(out, location);
    out.push(')');
}

/// Appends what goes inside `loc(…)`.
pub fn print_location_body(out: &mut String, location: &Location) {
    match location {
        Location::Unknown => out.push_str("unknown"),
        Location::Alias(name) => {
            out.push('#');
            out.push_str(name);
        }
        Location::FileLineCol {
            file,
            line,
            col,
            end,
        } => {
            print_string(out, file);
            out.push_str(&format!(":{line}:{col}"));
            match end {
                Some((Some(end_line), end_col)) => {
                    out.push_str(&format!(" to {end_line}:{end_col}"))
                }
                Some((None, end_col)) => out.push_str(&format!(" to :{end_col}")),
                None => {}
            }
        }
        Location::Name { name, child } => {
            print_string(out, name);
            if let Some(child) = child {
                out.push('(');
                print_location_body(out, child);
                out.push(')');
            }
        }
        Location::CallSite { callee, caller } => {
            out.push_str("callsite(");
            print_location_body(out, callee);
            out.push_str(" at ");
            print_location_body(out, caller);
            out.push(')');
        }
        Location::Fused {
            metadata,
            locations,
        } => {
            out.push_str("fused");
            if let Some(metadata) = metadata {
                out.push('<');
                out.push_str(metadata);
                out.push('>');
            }
            out.push('[');
            for (i, location) in locations.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                print_location_body(out, location);
            }
            out.push(']');
        }
    }
}
