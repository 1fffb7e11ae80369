//! NumPy `.npy` files (format versions 1–3), read and written by hand: the
//! format is a magic string, a Python-dict header and the raw elements.
//!
//! NumPy has no bf16 or f8 types: JAX saves them as `uint16`/`uint8` (or the
//! opaque `V2`/`V1`), so the element type of such a file comes from the
//! caller (a parameter's shape, a flag) and the file only has to agree on the
//! element size. Files are written the same way: bf16 as `<u2`, the f8 family
//! as `|u1`, `s4`/`u4` one byte per element as `|i1`/`|u1`.

use weft_ir::ElementType;
use weft_ir::literal::storage_bytes;

use crate::tensor::Tensor;

/// Why a file is not a usable `.npy` array.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NpyError(pub String);

impl std::fmt::Display for NpyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NpyError {}

fn error(message: impl Into<String>) -> NpyError {
    NpyError(message.into())
}

/// The `descr` NumPy writes for `elem`.
pub fn descr(elem: ElementType) -> &'static str {
    use ElementType as E;
    match elem {
        E::Pred => "|b1",
        E::S2 | E::S4 | E::S8 => "|i1",
        E::S16 => "<i2",
        E::S32 => "<i4",
        E::S64 => "<i8",
        E::U16 | E::Bf16 => "<u2",
        E::U32 => "<u4",
        E::U64 => "<u8",
        E::F16 => "<f2",
        E::F32 => "<f4",
        E::F64 => "<f8",
        E::C64 => "<c8",
        E::C128 => "<c16",
        _ => "|u1",
    }
}

/// The element type a `descr` names on its own, when it names one.
fn element_of_descr(descr: &str) -> Option<ElementType> {
    use ElementType as E;
    Some(match descr.trim_start_matches(['<', '|', '=']) {
        "b1" => E::Pred,
        "i1" => E::S8,
        "i2" => E::S16,
        "i4" => E::S32,
        "i8" => E::S64,
        "u1" => E::U8,
        "u2" => E::U16,
        "u4" => E::U32,
        "u8" => E::U64,
        "f2" => E::F16,
        "f4" => E::F32,
        "f8" => E::F64,
        "c8" => E::C64,
        "c16" => E::C128,
        _ => return None,
    })
}

/// What a `.npy` header says of the array after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The element type (see [`read`] for how it is chosen).
    pub elem: ElementType,
    /// The dimensions.
    pub dims: Vec<i64>,
    /// Where the elements start in the file.
    pub data_start: usize,
    /// How many bytes of elements the array needs: checked, so a shape whose
    /// size wraps is an error here, not a small number.
    pub data_bytes: weft_ir::size::Size,
}

/// Reads an array. `expected`, when given, is the element type the caller
/// needs; the file must hold that type or, for types NumPy lacks, a type of
/// the same size (`uint16` or `V2` for bf16, …).
pub fn read(bytes: &[u8], expected: Option<ElementType>) -> Result<Tensor, NpyError> {
    let header = read_header(bytes, expected)?;
    let data = &bytes[header.data_start..];
    let want = header.data_bytes.as_usize();
    if data.len() < want {
        return Err(error(format!(
            "the file holds {} bytes of data, {} are needed for {}",
            data.len(),
            want,
            weft_ir::size::shape_text(header.elem, &header.dims)
        )));
    }
    let mut bytes = data[..want].to_vec();
    if header.elem == ElementType::Pred {
        // NumPy and XLA read any nonzero byte as true; weft's kernels rely on
        // 0 and 1.
        for byte in &mut bytes {
            *byte = u8::from(*byte != 0);
        }
    }
    Ok(Tensor {
        elem: header.elem,
        dims: header.dims,
        bytes: bytes.into(),
    })
}

/// Reads the header of an array from the start of its file (`bytes` may be
/// just a prefix: the header and nothing after it is enough), checking the
/// element type as [`read`] does and that the shape has a size.
pub fn read_header(bytes: &[u8], expected: Option<ElementType>) -> Result<Header, NpyError> {
    if !bytes.starts_with(b"\x93NUMPY") || bytes.len() < 10 {
        return Err(error("not a .npy file (no \\x93NUMPY magic)"));
    }
    let major = bytes[6];
    let (header_len, start) = match major {
        1 => (usize::from(u16::from_le_bytes([bytes[8], bytes[9]])), 10),
        2 | 3 if bytes.len() >= 12 => (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        ),
        _ => return Err(error(format!("unsupported .npy format version {major}"))),
    };
    let header = bytes
        .get(start..start + header_len)
        .and_then(|h| std::str::from_utf8(h).ok())
        .ok_or_else(|| error("the .npy header is truncated or not text"))?;
    // NumPy would take the last of two values; which one the writer meant
    // is anyone's guess.
    if let Some(key) = ["descr", "fortran_order", "shape"]
        .into_iter()
        .find(|key| header.matches(&format!("'{key}'")).count() > 1)
    {
        return Err(error(format!("the .npy header gives '{key}' twice")));
    }
    let descr = dict_value(header, "descr")
        .map(|v| v.trim_matches(['\'', '"']))
        .ok_or_else(|| error("the .npy header has no 'descr'"))?;
    if dict_value(header, "fortran_order").is_some_and(|v| v.starts_with("True")) {
        return Err(error(
            "Fortran-ordered arrays are not supported (save with np.ascontiguousarray)",
        ));
    }
    let shape_text =
        dict_value(header, "shape").ok_or_else(|| error("the .npy header has no 'shape'"))?;
    let dims = parse_shape(shape_text)?;
    if descr.starts_with('>') {
        return Err(error(format!(
            "big-endian arrays ('{descr}') are not supported"
        )));
    }
    let named = element_of_descr(descr);
    let opaque_size = descr
        .trim_start_matches(['<', '|', '='])
        .strip_prefix('V')
        .and_then(|n| n.parse::<usize>().ok());
    let elem = match (expected, named) {
        (Some(want), Some(found)) if want == found => want,
        (Some(want), Some(found))
            if !numpy_has(want) && storage_bytes(found) == storage_bytes(want) =>
        {
            want
        }
        (Some(want), None) if opaque_size == Some(storage_bytes(want)) => want,
        (Some(want), _) => {
            return Err(error(format!(
                "the file holds '{descr}' but {} is needed",
                want.name()
            )));
        }
        (None, Some(found)) => found,
        (None, None) => {
            return Err(error(format!(
                "'{descr}' does not say its element type; give it (e.g. bf16) explicitly"
            )));
        }
    };
    let data_bytes = weft_ir::size::byte_size(elem, &dims).map_err(|e| error(e.to_string()))?;
    Ok(Header {
        elem,
        dims,
        data_start: start + header_len,
        data_bytes,
    })
}

/// Whether NumPy has `elem` as a type of its own.
fn numpy_has(elem: ElementType) -> bool {
    element_of_descr(descr(elem)) == Some(elem)
}

/// The text after `'key':` in a Python dict literal, up to the next
/// top-level comma or the closing brace.
fn dict_value<'h>(header: &'h str, key: &str) -> Option<&'h str> {
    let at = header
        .find(&format!("'{key}'"))
        .or_else(|| header.find(&format!("\"{key}\"")))?;
    let rest = &header[at + key.len() + 2..];
    let rest = rest.trim_start().strip_prefix(':')?.trim_start();
    let mut depth = 0;
    for (i, c) in rest.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ',' | '}' if depth == 0 => return Some(rest[..i].trim()),
            _ => {}
        }
    }
    Some(rest.trim())
}

fn parse_shape(text: &str) -> Result<Vec<i64>, NpyError> {
    let inner = text
        .trim()
        .strip_prefix('(')
        .and_then(|t| t.strip_suffix(')'))
        .ok_or_else(|| error(format!("bad shape {text}")))?;
    inner
        .split(',')
        .map(str::trim)
        .filter(|part| !part.is_empty())
        .map(|part| {
            part.trim_end_matches('L')
                .parse::<i64>()
                .map_err(|_| error(format!("bad dimension '{part}' in shape {text}")))
        })
        .collect()
}

/// The bytes of a version-1 `.npy` file holding `tensor`.
pub fn write(tensor: &Tensor) -> Vec<u8> {
    let shape = match tensor.dims.len() {
        1 => format!("({},)", tensor.dims[0]),
        _ => {
            let dims: Vec<String> = tensor.dims.iter().map(i64::to_string).collect();
            format!("({})", dims.join(", "))
        }
    };
    let mut header = format!(
        "{{'descr': '{}', 'fortran_order': False, 'shape': {shape}, }}",
        descr(tensor.elem)
    );
    // The data starts at a multiple of 64 bytes; the header ends in '\n'.
    let unpadded = 10 + header.len() + 1;
    header.push_str(&" ".repeat(unpadded.next_multiple_of(64) - unpadded));
    header.push('\n');
    let mut out = Vec::with_capacity(10 + header.len() + tensor.bytes.len());
    out.extend_from_slice(b"\x93NUMPY\x01\x00");
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(&tensor.bytes);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A version-1 header for `<f4` data of `shape` (Python tuple text).
    fn header(shape: &str) -> Vec<u8> {
        let text = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': {shape}, }}\n");
        let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
        bytes.extend_from_slice(&(text.len() as u16).to_le_bytes());
        bytes.extend_from_slice(text.as_bytes());
        bytes
    }

    #[test]
    fn shapes_without_a_size_are_errors_not_small_numbers() {
        // 2^62 f32s: 2^64 bytes, which wrapped to 0.
        let wrapped = read(&header("(4611686018427387904,)"), None).unwrap_err();
        assert!(wrapped.0.contains("overflows int64"), "{wrapped}");
        let negative = read(&header("(-1,)"), None).unwrap_err();
        assert!(negative.0.contains("negative dimension"), "{negative}");
        // The header alone says how much data a valid shape needs.
        let big = read_header(&header("(1000000000,)"), None).unwrap();
        assert_eq!(big.data_bytes.get(), 4_000_000_000);
        assert!(read(&header("(1000000000,)"), None).is_err());
    }

    #[test]
    fn written_files_read_back() {
        for (elem, dims) in [
            (ElementType::F32, vec![2, 3]),
            (ElementType::Bf16, vec![4]),
            (ElementType::S32, vec![]),
            (ElementType::Pred, vec![3, 1]),
            (ElementType::C64, vec![2]),
        ] {
            let mut tensor = Tensor::zeros(elem, &dims);
            for (i, b) in tensor.bytes.iter_mut().enumerate() {
                *b = (i * 7 % 251) as u8 & if elem == ElementType::Pred { 1 } else { 0xff };
            }
            let file = write(&tensor);
            assert_eq!((file.len() - tensor.bytes.len()) % 64, 0);
            assert_eq!(read(&file, Some(elem)).unwrap(), tensor, "{elem:?}");
        }
    }

    /// A version-1 file with `header` (padded as NumPy pads it) and `data`.
    fn file_with(header: &str, data: &[u8]) -> Vec<u8> {
        let mut header = header.to_string();
        while !(10 + header.len() + 1).is_multiple_of(64) {
            header.push(' ');
        }
        header.push('\n');
        let mut file = b"\x93NUMPY\x01\x00".to_vec();
        file.extend_from_slice(&(header.len() as u16).to_le_bytes());
        file.extend_from_slice(header.as_bytes());
        file.extend_from_slice(data);
        file
    }

    #[test]
    fn any_nonzero_pred_byte_reads_as_true() {
        let file = file_with(
            "{'descr': '|b1', 'fortran_order': False, 'shape': (4,), }",
            &[0, 1, 2, 255],
        );
        let tensor = read(&file, Some(ElementType::Pred)).unwrap();
        assert_eq!(&tensor.bytes[..], &[0, 1, 1, 1]);
    }

    #[test]
    fn a_header_that_gives_a_key_twice_is_refused() {
        let file = file_with(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'shape': (2,), }",
            &[0; 8],
        );
        assert_eq!(
            read(&file, None).unwrap_err().0,
            "the .npy header gives 'shape' twice"
        );
    }

    #[test]
    fn types_numpy_lacks_need_the_caller_and_a_matching_size() {
        let tensor = Tensor::zeros(ElementType::Bf16, &[2]);
        let file = write(&tensor);
        assert_eq!(read(&file, None).unwrap().elem, ElementType::U16);
        let error = read(&file, Some(ElementType::F32)).unwrap_err();
        assert!(error.0.contains("holds '<u2' but f32 is needed"), "{error}");
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        assert!(read(b"hello", None).is_err());
        assert!(read(b"\x93NUMPY\x01\x00\xff\x00{", None).is_err());
    }
}
