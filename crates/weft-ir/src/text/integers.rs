//! Printing integers and integer lists in HLO text (dimension sizes, indices,
//! device ids), digit by digit rather than through `fmt`.

/// Appends a decimal integer without going through `fmt`.
#[inline]
pub(crate) fn push_int(out: &mut String, v: i64) {
    let mut buf = [0u8; 20];
    let mut n = v.unsigned_abs();
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if v < 0 {
        out.push('-');
    }
    for &digit in &buf[i..] {
        out.push(char::from(digit));
    }
}

/// Appends `{a,b,c}`.
pub(crate) fn push_int_list(out: &mut String, values: &[i64]) {
    out.push('{');
    push_int_list_compact(out, values);
    out.push('}');
}

/// Appends `a,b,c`.
pub(crate) fn push_int_list_compact(out: &mut String, values: &[i64]) {
    for (i, &v) in values.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_int(out, v);
    }
}
