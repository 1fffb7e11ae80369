//! The shape of the interconnect: which devices share which links.
//!
//! A [`Topology`] places every device (by its flattened id, `replica ×
//! partitions + partition`) and says what links join them:
//!
//! - **flat**: every pair of devices joined by one [`Link`]. This is the
//!   runtime's original link model and the default: a collective is one
//!   transfer, its latency paid once (see [`crate::collective`]).
//! - **nodes**: `devices_per_node` devices per node (device `d` on node
//!   `d / devices_per_node`, at local index `d % devices_per_node`), any two
//!   of a node joined by the `intra` link (a switch such as NVSwitch), any
//!   two of different nodes by the `inter` link (each device's own network
//!   interface, as on an 8-GPU server with one NIC per GPU).
//! - **ring**, **torus**, **mesh**: devices at the points of a 1-D, 2-D or
//!   3-D grid of `dimensions`, each joined to its neighbour along every
//!   dimension by a full-duplex `link`; a torus (and a ring) wraps around,
//!   a mesh does not. Device `d` sits at coordinates `(d mod d₀, (d / d₀)
//!   mod d₁, …)`: the first dimension varies fastest, as XLA numbers a TPU
//!   slice's devices.
//!
//! Invariants: a grid has one to three dimensions, each of at least one
//! point; `devices_per_node ≥ 1`; a paced link's bandwidth is positive and
//! finite. A torus holds exactly [`Topology::capacity`] devices; the caller
//! refuses a run with more (devices beyond it would wrap onto the grid).
//!
//! # Text form
//!
//! The `--topology` flag and a profile's `[interconnect]` table write a
//! topology as text (whitespace is not allowed):
//!
//! ```text
//! topology   := "flat" options
//!             | "nodes:" COUNT options     (options: intra=LINK, inter=LINK)
//!             | "ring:" COUNT options      (options: link=LINK)
//!             | "torus:" GRID options      (options: link=LINK)
//!             | "mesh:" GRID options       (options: link=LINK)
//! options    := (":" KEY "=" LINK)*        (each key at most once)
//! GRID       := COUNT ("x" COUNT){0,2}     (1 to 3 dimensions)
//! LINK       := BANDWIDTH "," LATENCY | "unpaced"
//! BANDWIDTH  := NUMBER ("B/s" | "kB/s" | "MB/s" | "GB/s" | "TB/s" | "Gb/s" | "Tb/s")
//! LATENCY    := NUMBER ("ns" | "us" | "µs" | "ms" | "s")
//! ```
//!
//! A link left out is the default link the caller passes (for `weft run`,
//! `--link-bandwidth` and `--link-latency`). Examples: `flat`,
//! `nodes:8:intra=450GB/s,3us:inter=50GB/s,10us`, `ring:8:link=25GB/s,5us`,
//! `torus:4x4x4:link=50GB/s,2us`, `mesh:2x4`. `torus:N` is `ring:N`.
//!
//! Bytes units are decimal (`1GB/s` is 10⁹ bytes per second) and `Gb/s` is
//! gigabits, an eighth of `GB/s`, as network datasheets write it. A parse
//! error names its column and gives a hint. [`Topology`]'s `Display` writes
//! every link out, in GB/s when that is exact and µs when whole, so the text
//! parses back to the same value (with any default link).

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use crate::link::Link;

/// Which devices share which links (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub enum Topology {
    /// Every pair of devices joined by one link.
    Flat {
        /// The link.
        link: Link,
    },
    /// Nodes of `devices_per_node` devices.
    Nodes {
        /// Devices on each node.
        devices_per_node: usize,
        /// The link between two devices of one node.
        intra: Link,
        /// The link between two devices of different nodes.
        inter: Link,
    },
    /// A 1-D to 3-D grid of neighbour links: a ring, torus or mesh.
    Grid {
        /// The number of points along each dimension, the first varying
        /// fastest.
        dimensions: Vec<usize>,
        /// The link between two neighbours, in each direction.
        link: Link,
        /// Whether each dimension wraps around (a ring or torus) or not (a
        /// mesh).
        wraparound: bool,
    },
}

impl Default for Topology {
    /// Flat, with the default link.
    fn default() -> Topology {
        Topology::Flat {
            link: Link::default(),
        }
    }
}

impl Topology {
    /// The flat topology of `link`: the runtime's original model.
    pub fn flat(link: Link) -> Topology {
        Topology::Flat { link }
    }

    /// How many devices the topology holds: a grid's points; `None` for
    /// any number (flat, nodes).
    pub fn capacity(&self) -> Option<usize> {
        match self {
            Topology::Grid { dimensions, .. } => Some(dimensions.iter().product()),
            Topology::Flat { .. } | Topology::Nodes { .. } => None,
        }
    }

    /// Where device `device` sits: `[device]` on a flat topology, `[local
    /// index, node]` on nodes, its grid coordinates (first fastest) on a
    /// grid.
    pub fn coordinates(&self, device: usize) -> Vec<usize> {
        match self {
            Topology::Flat { .. } => vec![device],
            Topology::Nodes {
                devices_per_node, ..
            } => {
                let per_node = (*devices_per_node).max(1);
                vec![device % per_node, device / per_node]
            }
            Topology::Grid { dimensions, .. } => {
                let mut rest = device;
                dimensions
                    .iter()
                    .map(|&size| {
                        let size = size.max(1);
                        let coordinate = rest % size;
                        rest /= size;
                        coordinate
                    })
                    .collect()
            }
        }
    }

    /// The number of links a message from `source` to `target` crosses: 0
    /// to itself, 1 on a flat topology or nodes, the shortest path along
    /// each dimension on a grid (dimension-ordered routing).
    pub fn hops(&self, source: usize, target: usize) -> usize {
        if source == target {
            return 0;
        }
        match self {
            Topology::Flat { .. } | Topology::Nodes { .. } => 1,
            Topology::Grid {
                dimensions,
                wraparound,
                ..
            } => {
                let from = self.coordinates(source);
                let to = self.coordinates(target);
                dimensions
                    .iter()
                    .zip(from.iter().zip(&to))
                    .map(|(&size, (&a, &b))| distance(a, b, size, *wraparound))
                    .sum()
            }
        }
    }

    /// The link a message from `source` to `target` travels over (on a
    /// grid, every hop's).
    pub fn link_between(&self, source: usize, target: usize) -> Link {
        match self {
            Topology::Flat { link } | Topology::Grid { link, .. } => *link,
            Topology::Nodes {
                intra,
                inter,
                devices_per_node,
            } => {
                let per_node = (*devices_per_node).max(1);
                if source / per_node == target / per_node {
                    *intra
                } else {
                    *inter
                }
            }
        }
    }

    /// Reads the text form (module docs); a link left out is
    /// `default_link`.
    pub fn parse(text: &str, default_link: Link) -> Result<Topology, TopologyError> {
        Parser { text, default_link }.topology()
    }
}

/// The distance from coordinate `a` to `b` along a dimension of `size`
/// points, the short way round when it wraps.
pub(crate) fn distance(a: usize, b: usize, size: usize, wraparound: bool) -> usize {
    let straight = a.abs_diff(b);
    if wraparound {
        straight.min(size.max(1) - straight)
    } else {
        straight
    }
}

impl FromStr for Topology {
    type Err = TopologyError;

    /// [`Topology::parse`] with [`Link::default`] for links left out.
    fn from_str(text: &str) -> Result<Topology, TopologyError> {
        Topology::parse(text, Link::default())
    }
}

impl fmt::Display for Topology {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Topology::Flat { link } => write!(f, "flat:link={}", LinkText(link)),
            Topology::Nodes {
                devices_per_node,
                intra,
                inter,
            } => write!(
                f,
                "nodes:{devices_per_node}:intra={}:inter={}",
                LinkText(intra),
                LinkText(inter)
            ),
            Topology::Grid {
                dimensions,
                link,
                wraparound,
            } => {
                let kind = match (dimensions.len(), wraparound) {
                    (1, true) => "ring",
                    (_, true) => "torus",
                    (_, false) => "mesh",
                };
                let grid: Vec<String> = dimensions.iter().map(usize::to_string).collect();
                write!(f, "{kind}:{}:link={}", grid.join("x"), LinkText(link))
            }
        }
    }
}

/// A link as the text form writes it: `450GB/s,5us`, `unpaced`.
pub struct LinkText<'a>(pub &'a Link);

impl fmt::Display for LinkText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(bandwidth) = self.0.bandwidth else {
            return write!(f, "unpaced");
        };
        // GB/s when that reads back to the same number, else exact bytes.
        let gigabytes = bandwidth / 1e9;
        if gigabytes * 1e9 == bandwidth {
            write!(f, "{gigabytes}GB/s,")?;
        } else {
            write!(f, "{bandwidth}B/s,")?;
        }
        let nanoseconds = self.0.latency.as_nanos();
        if nanoseconds.is_multiple_of(1000) {
            write!(f, "{}us", nanoseconds / 1000)
        } else {
            write!(f, "{nanoseconds}ns")
        }
    }
}

/// A topology text that does not parse: what is wrong, where, and what to
/// write instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopologyError {
    /// The text.
    pub text: String,
    /// Where the problem is, counting characters from 1.
    pub column: usize,
    /// What is wrong.
    pub message: String,
    /// What to write instead.
    pub hint: String,
}

impl fmt::Display for TopologyError {
    /// The message, the text with a caret under the column, and the hint.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} (column {})", self.message, self.column)?;
        writeln!(f, "  {}", self.text)?;
        writeln!(f, "  {}^", " ".repeat(self.column.saturating_sub(1)))?;
        write!(f, "  hint: {}", self.hint)
    }
}

impl std::error::Error for TopologyError {}

/// The kinds of topology the text form names, for hints.
const KINDS: &str = "flat, nodes:8:intra=450GB/s,3us:inter=50GB/s,10us, ring:8, torus:4x4x4:link=50GB/s,2us or mesh:2x4";

/// A link's text, for hints.
const LINK_EXAMPLE: &str =
    "a link is BANDWIDTH,LATENCY such as 50GB/s,10us or 400Gb/s,2us, or unpaced";

/// The text form's recursive-descent reader. Positions are byte offsets
/// into `text`; errors report them as 1-based character columns.
struct Parser<'a> {
    text: &'a str,
    default_link: Link,
}

/// One `:`-separated field of the text and where it starts.
#[derive(Clone, Copy)]
struct Field<'a> {
    text: &'a str,
    start: usize,
}

impl<'a> Parser<'a> {
    fn error(
        &self,
        at: usize,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) -> TopologyError {
        TopologyError {
            text: self.text.to_string(),
            column: self.text[..at.min(self.text.len())].chars().count() + 1,
            message: message.into(),
            hint: hint.into(),
        }
    }

    fn fields(&self) -> Vec<Field<'a>> {
        let mut start = 0;
        self.text
            .split(':')
            .map(|text| {
                let field = Field { text, start };
                start += text.len() + 1;
                field
            })
            .collect()
    }

    fn topology(&self) -> Result<Topology, TopologyError> {
        if let Some(at) = self.text.find(char::is_whitespace) {
            return Err(self.error(
                at,
                "a topology has no spaces",
                format!("write it as one word: {KINDS}"),
            ));
        }
        let fields = self.fields();
        let kind = fields[0];
        let rest = &fields[1..];
        match kind.text {
            "flat" => {
                let [link] = self.options(rest, ["link"])?;
                Ok(Topology::Flat { link })
            }
            "nodes" => {
                let (count, rest) =
                    self.positional(kind, rest, "the devices per node", "nodes:8")?;
                let devices_per_node = self.count(count, "devices per node")?;
                let [intra, inter] = self.options(rest, ["intra", "inter"])?;
                Ok(Topology::Nodes {
                    devices_per_node,
                    intra,
                    inter,
                })
            }
            "ring" | "torus" | "mesh" => {
                let example = match kind.text {
                    "ring" => "ring:8",
                    _ => "torus:4x4x4",
                };
                let (grid, rest) = self.positional(kind, rest, "the grid's size", example)?;
                let dimensions = if kind.text == "ring" {
                    vec![self.count(grid, "devices in the ring")?]
                } else {
                    self.grid(grid)?
                };
                let [link] = self.options(rest, ["link"])?;
                Ok(Topology::Grid {
                    dimensions,
                    link,
                    wraparound: kind.text != "mesh",
                })
            }
            "" => Err(self.error(kind.start, "expected a topology", format!("one of {KINDS}"))),
            other => Err(self.error(
                kind.start,
                format!("unknown topology `{other}`"),
                format!("one of {KINDS}"),
            )),
        }
    }

    /// The field after the kind, which must be there.
    fn positional<'f>(
        &self,
        kind: Field<'a>,
        rest: &'f [Field<'a>],
        what: &str,
        example: &str,
    ) -> Result<(Field<'a>, &'f [Field<'a>]), TopologyError> {
        match rest.split_first() {
            Some((first, rest)) if !first.text.contains('=') => Ok((*first, rest)),
            _ => Err(self.error(
                kind.start + kind.text.len(),
                format!("`{}` needs {what}", kind.text),
                format!("for example {example}"),
            )),
        }
    }

    /// A whole number of at least 1.
    fn count(&self, field: Field<'a>, what: &str) -> Result<usize, TopologyError> {
        match field.text.parse::<usize>() {
            Ok(count) if count >= 1 => Ok(count),
            _ => Err(self.error(
                field.start,
                format!("expected the number of {what}, found `{}`", field.text),
                "a whole number of at least 1",
            )),
        }
    }

    /// `AxBxC`: one to three dimensions.
    fn grid(&self, field: Field<'a>) -> Result<Vec<usize>, TopologyError> {
        let mut dimensions = Vec::new();
        let mut start = field.start;
        for size in field.text.split('x') {
            let count = self.count(Field { text: size, start }, "points along a dimension");
            dimensions.push(count.map_err(|mut e| {
                e.hint = "a grid is 1 to 3 whole numbers joined by x, such as 4x4x4".into();
                e
            })?);
            start += size.len() + 1;
        }
        if dimensions.len() > 3 {
            return Err(self.error(
                field.start,
                format!("a grid has 1 to 3 dimensions, not {}", dimensions.len()),
                "a ring (8), a 2-D torus (4x4) or a 3-D torus (4x4x4)",
            ));
        }
        Ok(dimensions)
    }

    /// `:key=LINK` options, each of `keys` at most once; those left out are
    /// the default link.
    fn options<const N: usize>(
        &self,
        fields: &[Field<'a>],
        keys: [&str; N],
    ) -> Result<[Link; N], TopologyError> {
        let mut links: [Option<Link>; N] = [None; N];
        let allowed = keys.map(|k| format!("{k}=LINK")).join(", ");
        for field in fields {
            let Some((key, value)) = field.text.split_once('=') else {
                return Err(self.error(
                    field.start,
                    format!("expected KEY=LINK, found `{}`", field.text),
                    format!("the options here are {allowed}"),
                ));
            };
            let Some(index) = keys.iter().position(|k| *k == key) else {
                return Err(self.error(
                    field.start,
                    format!("unknown option `{key}`"),
                    format!("the options here are {allowed}"),
                ));
            };
            if links[index].is_some() {
                return Err(self.error(
                    field.start,
                    format!("`{key}` is given twice"),
                    "give each option once",
                ));
            }
            links[index] = Some(self.link(Field {
                text: value,
                start: field.start + key.len() + 1,
            })?);
        }
        Ok(links.map(|link| link.unwrap_or(self.default_link)))
    }

    /// `BANDWIDTH,LATENCY` or `unpaced`.
    fn link(&self, field: Field<'a>) -> Result<Link, TopologyError> {
        if field.text == "unpaced" {
            return Ok(Link::UNPACED);
        }
        let Some((bandwidth, latency)) = field.text.split_once(',') else {
            return Err(self.error(
                field.start,
                format!("expected BANDWIDTH,LATENCY, found `{}`", field.text),
                LINK_EXAMPLE,
            ));
        };
        let latency_start = field.start + bandwidth.len() + 1;
        let bandwidth = self.quantity(
            Field {
                text: bandwidth,
                start: field.start,
            },
            &[
                ("B/s", 1.0),
                ("kB/s", 1e3),
                ("MB/s", 1e6),
                ("GB/s", 1e9),
                ("TB/s", 1e12),
                ("Gb/s", 1e9 / 8.0),
                ("Tb/s", 1e12 / 8.0),
            ],
            "a bandwidth",
            "B/s, kB/s, MB/s, GB/s, TB/s, Gb/s or Tb/s, as in 50GB/s",
        )?;
        if bandwidth <= 0.0 || !bandwidth.is_finite() {
            return Err(self.error(
                field.start,
                "a bandwidth must be positive and finite",
                "unpaced turns pacing off instead",
            ));
        }
        let latency_field = Field {
            text: latency,
            start: latency_start,
        };
        let nanoseconds = self.quantity(
            latency_field,
            &[
                ("ns", 1.0),
                ("us", 1e3),
                ("µs", 1e3),
                ("ms", 1e6),
                ("s", 1e9),
            ],
            "a latency",
            "ns, us, ms or s, as in 5us",
        )?;
        if !(0.0..=1e18).contains(&nanoseconds) {
            return Err(self.error(
                latency_start,
                "a latency must be from 0 to about 30 years",
                "such as 5us",
            ));
        }
        Ok(Link {
            bandwidth: Some(bandwidth),
            latency: Duration::from_nanos(nanoseconds.round() as u64),
        })
    }

    /// A number followed by one of `units` (name, scale), scaled.
    fn quantity(
        &self,
        field: Field<'a>,
        units: &[(&str, f64)],
        what: &str,
        unit_hint: &str,
    ) -> Result<f64, TopologyError> {
        let number_length = number_prefix(field.text);
        let (number, unit) = field.text.split_at(number_length);
        let Ok(value) = number.parse::<f64>() else {
            return Err(self.error(
                field.start,
                format!("expected {what}, found `{}`", field.text),
                LINK_EXAMPLE,
            ));
        };
        match units.iter().find(|(name, _)| *name == unit) {
            Some((_, scale)) => Ok(value * scale),
            None => Err(self.error(
                field.start + number_length,
                if unit.is_empty() {
                    format!("{what} needs a unit")
                } else {
                    format!("unknown unit `{unit}`")
                },
                format!("write {unit_hint}"),
            )),
        }
    }
}

/// The length of the decimal number `text` begins with (digits, a point,
/// an exponent).
fn number_prefix(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut end = 0;
    while end < bytes.len() {
        let byte = bytes[end];
        let exponent = matches!(byte, b'e' | b'E')
            && end > 0
            && bytes
                .get(end + 1)
                .is_some_and(|next| next.is_ascii_digit() || matches!(next, b'-' | b'+'));
        let sign = matches!(byte, b'-' | b'+') && end > 0 && matches!(bytes[end - 1], b'e' | b'E');
        if byte.is_ascii_digit() || byte == b'.' || exponent || sign {
            end += 1;
        } else {
            break;
        }
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(gigabytes: f64, microseconds: u64) -> Link {
        Link {
            bandwidth: Some(gigabytes * 1e9),
            latency: Duration::from_micros(microseconds),
        }
    }

    #[test]
    fn every_kind_parses() {
        let default = link(25.0, 5);
        assert_eq!(
            Topology::parse("flat", default),
            Ok(Topology::flat(default))
        );
        assert_eq!(
            Topology::parse("nodes:8:intra=450GB/s,3us:inter=400Gb/s,10us", default),
            Ok(Topology::Nodes {
                devices_per_node: 8,
                intra: link(450.0, 3),
                inter: link(50.0, 10),
            })
        );
        assert_eq!(
            Topology::parse("ring:8", default),
            Ok(Topology::Grid {
                dimensions: vec![8],
                link: default,
                wraparound: true,
            })
        );
        assert_eq!(
            Topology::parse("mesh:2x4:link=unpaced", default),
            Ok(Topology::Grid {
                dimensions: vec![2, 4],
                link: Link::UNPACED,
                wraparound: false,
            })
        );
        let torus = Topology::parse("torus:4x4x4:link=0.05TB/s,2000ns", default).expect("torus");
        assert_eq!(torus.capacity(), Some(64));
        assert_eq!(torus.to_string(), "torus:4x4x4:link=50GB/s,2us");
    }

    #[test]
    fn the_text_form_round_trips() {
        for text in [
            "flat:link=25GB/s,5us",
            "nodes:8:intra=450GB/s,3us:inter=50GB/s,10us",
            "ring:16:link=unpaced",
            "torus:4x4:link=45GB/s,1500ns",
            "mesh:2x2x3:link=12345.678B/s,7ms",
            "torus:8:link=1e-3GB/s,0us",
        ] {
            let topology: Topology = text.parse().expect(text);
            let again: Topology = topology.to_string().parse().expect("printed");
            assert_eq!(again, topology, "{text} → {topology}");
        }
        // An odd bandwidth is written in bytes, exactly.
        let odd = Topology::flat(Link {
            bandwidth: Some(0.1 + 0.2),
            latency: Duration::from_nanos(1),
        });
        assert_eq!(odd.to_string().parse::<Topology>(), Ok(odd));
    }

    #[test]
    fn errors_name_their_column_and_give_a_hint() {
        let error = |text: &str| text.parse::<Topology>().expect_err(text);
        let unknown = error("tree:4");
        assert_eq!(unknown.column, 1);
        assert!(unknown.hint.contains("nodes:8"), "{unknown}");
        let count = error("nodes:x:inter=1GB/s,1us");
        assert_eq!(
            (count.column, count.message.as_str()),
            (7, "expected the number of devices per node, found `x`")
        );
        let unit = error("nodes:8:inter=50GB,10us");
        assert_eq!(unit.column, 17, "{unit}");
        assert!(unit.message.contains("unknown unit `GB`"), "{unit}");
        let latency = error("ring:8:link=50GB/s,10");
        assert_eq!(latency.column, 22, "{latency}");
        assert!(latency.message.contains("needs a unit"), "{latency}");
        let option = error("torus:4x4:intra=1GB/s,1us");
        assert_eq!(option.column, 11);
        assert!(option.hint.contains("link=LINK"), "{option}");
        let twice = error("nodes:8:inter=1GB/s,1us:inter=1GB/s,1us");
        assert_eq!(twice.column, 25);
        assert_eq!(error("torus:4x0").column, 9);
        assert_eq!(
            error("torus:2x2x2x2").message,
            "a grid has 1 to 3 dimensions, not 4"
        );
        assert_eq!(error("nodes").column, 6);
        assert_eq!(error("flat:link=0GB/s,1us").column, 11);
        assert_eq!(error("flat :link").column, 5);
        // The rendering points at the column.
        assert_eq!(
            unit.to_string(),
            "unknown unit `GB` (column 17)\n  nodes:8:inter=50GB,10us\n                  ^\n  hint: write B/s, kB/s, MB/s, GB/s, TB/s, Gb/s or Tb/s, as in 50GB/s"
        );
    }

    #[test]
    fn devices_know_their_place() {
        let nodes: Topology = "nodes:4".parse().expect("nodes");
        assert_eq!(nodes.coordinates(9), vec![1, 2]);
        assert_eq!(nodes.link_between(8, 11), Link::default());
        let torus: Topology = "torus:4x2x2".parse().expect("torus");
        assert_eq!(torus.coordinates(13), vec![1, 1, 1]);
        // (0,0,0) to (3,1,1): one hop back round the first ring, one along each other.
        assert_eq!(torus.hops(0, 15), 3);
        let mesh: Topology = "mesh:4x2x2".parse().expect("mesh");
        assert_eq!(mesh.hops(0, 15), 5);
        assert_eq!(mesh.hops(6, 6), 0);
    }
}
