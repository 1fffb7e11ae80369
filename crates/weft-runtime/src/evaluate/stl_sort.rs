//! The two sorts XLA:CPU runs a `sort` with, step for step: libstdc++'s
//! `std::stable_sort` when the sort `is_stable`, `std::sort` (an introsort)
//! otherwise. XLA calls them with the program's comparator as it is, so
//! weft orders every line as XLA:CPU does — the order of ties in an
//! unstable sort, and whatever a comparator that is not a strict weak order
//! makes of a line: `compare(a, b), direction=LT` on floats calls a NaN
//! neither less nor greater than anything, which leaves the numbers around
//! it partly unsorted, the same numbers in the same places as XLA:CPU's
//! (checked against jaxlib 0.10.2).
//!
//! Where libstdc++ relies on the comparator for a bound (`std::sort`'s
//! unguarded loops stop at a sentinel only a strict weak order guarantees),
//! a comparator that is not one makes XLA:CPU read outside the line — it
//! crashes on `direction=LE` over a line of equal keys longer than 16 —
//! while here each such loop also stops at the line's end. The order is
//! then weft's own; it is never a crash.
//!
//! Items are positions in the line; `less(a, b)` runs the comparator on the
//! elements at positions `a` and `b`. Each function follows the libstdc++
//! function of the same name (`bits/stl_algo.h`, `bits/stl_heap.h`).

use super::RunError;

/// The comparator: whether the element at the first position goes before
/// the one at the second.
pub(super) type Less<'l> = dyn FnMut(usize, usize) -> Result<bool, RunError> + 'l;

/// How long a run `std::stable_sort` sorts by insertion before merging.
const CHUNK: usize = 7;

/// How short a range `std::sort` leaves to its final insertion sort.
const THRESHOLD: usize = 16;

/// `std::stable_sort` with a temporary buffer of half the line (libstdc++
/// always gets one for a line that fits in memory).
pub(super) fn stable_sort(items: &mut [usize], less: &mut Less) -> Result<(), RunError> {
    let n = items.len();
    if n < 2 {
        return Ok(());
    }
    let middle = n.div_ceil(2);
    let mut buffer = vec![0; middle];
    merge_sort_with_buffer(&mut items[..middle], &mut buffer, less)?;
    merge_sort_with_buffer(&mut items[middle..], &mut buffer, less)?;
    merge_adaptive(items, middle, &mut buffer, less)
}

/// Insertion sorts runs of [`CHUNK`], then merges runs of doubling length
/// into `buffer` and back.
fn merge_sort_with_buffer(
    items: &mut [usize],
    buffer: &mut [usize],
    less: &mut Less,
) -> Result<(), RunError> {
    let n = items.len();
    let buffer = &mut buffer[..n];
    for chunk in items.chunks_mut(CHUNK) {
        insertion_sort(chunk, less)?;
    }
    let mut step = CHUNK;
    while step < n {
        merge_sort_loop(items, buffer, step, less)?;
        step *= 2;
        merge_sort_loop(buffer, items, step, less)?;
        step *= 2;
    }
    Ok(())
}

/// Merges each pair of sorted runs of `step` in `from` into `to`.
fn merge_sort_loop(
    from: &[usize],
    to: &mut [usize],
    step: usize,
    less: &mut Less,
) -> Result<(), RunError> {
    let n = from.len();
    let mut first = 0;
    while n - first >= 2 * step {
        let (a, b) = from[first..first + 2 * step].split_at(step);
        move_merge(a, b, &mut to[first..], less)?;
        first += 2 * step;
    }
    let step = step.min(n - first);
    let (a, b) = from[first..].split_at(step);
    move_merge(a, b, &mut to[first..], less)
}

/// Merges `a` and `b` into `out`; an item of `b` goes first only when it is
/// less than `a`'s.
fn move_merge(
    a: &[usize],
    b: &[usize],
    out: &mut [usize],
    less: &mut Less,
) -> Result<(), RunError> {
    let (mut i, mut j, mut k) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        if less(b[j], a[i])? {
            out[k] = b[j];
            j += 1;
        } else {
            out[k] = a[i];
            i += 1;
        }
        k += 1;
    }
    out[k..k + a.len() - i].copy_from_slice(&a[i..]);
    k += a.len() - i;
    out[k..k + b.len() - j].copy_from_slice(&b[j..]);
    Ok(())
}

/// Merges the sorted `items[..middle]` and `items[middle..]` through
/// `buffer`: forwards when the first is no longer, else backwards.
fn merge_adaptive(
    items: &mut [usize],
    middle: usize,
    buffer: &mut [usize],
    less: &mut Less,
) -> Result<(), RunError> {
    let n = items.len();
    let (len1, len2) = (middle, n - middle);
    if len1 <= len2 {
        buffer[..len1].copy_from_slice(&items[..len1]);
        let (mut i, mut j, mut k) = (0, middle, 0);
        while i < len1 && j < n {
            if less(items[j], buffer[i])? {
                items[k] = items[j];
                j += 1;
            } else {
                items[k] = buffer[i];
                i += 1;
            }
            k += 1;
        }
        items[k..k + len1 - i].copy_from_slice(&buffer[i..len1]);
        return Ok(());
    }
    if len2 == 0 {
        return Ok(());
    }
    buffer[..len2].copy_from_slice(&items[middle..]);
    let (mut last1, mut last2, mut result) = (middle - 1, len2 - 1, n);
    loop {
        result -= 1;
        if less(buffer[last2], items[last1])? {
            items[result] = items[last1];
            if last1 == 0 {
                items[result - (last2 + 1)..result].copy_from_slice(&buffer[..=last2]);
                return Ok(());
            }
            last1 -= 1;
        } else {
            items[result] = buffer[last2];
            if last2 == 0 {
                return Ok(());
            }
            last2 -= 1;
        }
    }
}

/// Inserts each item into the sorted run before it, from the right.
fn insertion_sort(items: &mut [usize], less: &mut Less) -> Result<(), RunError> {
    for i in 1..items.len() {
        let item = items[i];
        if less(item, items[0])? {
            items.copy_within(0..i, 1);
            items[0] = item;
        } else {
            linear_insert(items, i, less)?;
        }
    }
    Ok(())
}

/// Moves `items[i]` left past every item it is less than (libstdc++'s
/// unguarded insert, which the line's start bounds here too).
fn linear_insert(items: &mut [usize], i: usize, less: &mut Less) -> Result<(), RunError> {
    let item = items[i];
    let mut hole = i;
    while hole > 0 && less(item, items[hole - 1])? {
        items[hole] = items[hole - 1];
        hole -= 1;
    }
    items[hole] = item;
    Ok(())
}

/// `std::sort`: introsort down to runs of [`THRESHOLD`] (heap sort past a
/// depth of twice the line's log₂), then one insertion sort.
pub(super) fn sort(items: &mut [usize], less: &mut Less) -> Result<(), RunError> {
    let n = items.len();
    if n == 0 {
        return Ok(());
    }
    introsort_loop(items, 0, n, 2 * n.ilog2() as usize, less)?;
    if n > THRESHOLD {
        insertion_sort(&mut items[..THRESHOLD], less)?;
        for i in THRESHOLD..n {
            linear_insert(items, i, less)?;
        }
        Ok(())
    } else {
        insertion_sort(items, less)
    }
}

fn introsort_loop(
    items: &mut [usize],
    first: usize,
    mut last: usize,
    mut depth: usize,
    less: &mut Less,
) -> Result<(), RunError> {
    while last - first > THRESHOLD {
        if depth == 0 {
            return heap_sort(&mut items[first..last], less);
        }
        depth -= 1;
        let cut = partition_pivot(items, first, last, less)?;
        introsort_loop(items, cut, last, depth, less)?;
        last = cut;
    }
    Ok(())
}

/// Moves the median of the second, middle and last items to the front and
/// partitions the rest around it; returns where the second part begins.
fn partition_pivot(
    items: &mut [usize],
    first: usize,
    last: usize,
    less: &mut Less,
) -> Result<usize, RunError> {
    let middle = first + (last - first) / 2;
    move_median_to_first(items, first, first + 1, middle, last - 1, less)?;
    unguarded_partition(items, first + 1, last, first, less)
}

fn move_median_to_first(
    items: &mut [usize],
    result: usize,
    a: usize,
    b: usize,
    c: usize,
    less: &mut Less,
) -> Result<(), RunError> {
    let mut less_at = |x: usize, y: usize, items: &[usize]| less(items[x], items[y]);
    let median = if less_at(a, b, items)? {
        if less_at(b, c, items)? {
            b
        } else if less_at(a, c, items)? {
            c
        } else {
            a
        }
    } else if less_at(a, c, items)? {
        a
    } else if less_at(b, c, items)? {
        c
    } else {
        b
    };
    items.swap(result, median);
    Ok(())
}

/// Hoare's partition of `items[first..last]` around `items[pivot]`.
fn unguarded_partition(
    items: &mut [usize],
    mut first: usize,
    mut last: usize,
    pivot: usize,
    less: &mut Less,
) -> Result<usize, RunError> {
    let end = last;
    loop {
        while first < end && less(items[first], items[pivot])? {
            first += 1;
        }
        last -= 1;
        while last > pivot && less(items[pivot], items[last])? {
            last -= 1;
        }
        if first >= last {
            return Ok(first);
        }
        items.swap(first, last);
        first += 1;
    }
}

/// `std::partial_sort` of the whole range: make a heap, then pop it.
fn heap_sort(items: &mut [usize], less: &mut Less) -> Result<(), RunError> {
    let len = items.len();
    if len >= 2 {
        let mut parent = (len - 2) / 2;
        loop {
            adjust_heap(items, parent, len, items[parent], less)?;
            if parent == 0 {
                break;
            }
            parent -= 1;
        }
    }
    let mut last = len;
    while last > 1 {
        last -= 1;
        let item = items[last];
        items[last] = items[0];
        adjust_heap(&mut items[..last], 0, last, item, less)?;
    }
    Ok(())
}

/// Sifts the hole at `hole` down to a leaf, then `item` up from there.
fn adjust_heap(
    items: &mut [usize],
    mut hole: usize,
    len: usize,
    item: usize,
    less: &mut Less,
) -> Result<(), RunError> {
    let top = hole;
    let mut child = hole;
    while child < (len - 1) / 2 {
        child = 2 * (child + 1);
        if less(items[child], items[child - 1])? {
            child -= 1;
        }
        items[hole] = items[child];
        hole = child;
    }
    if len.is_multiple_of(2) && child == (len - 2) / 2 {
        child = 2 * (child + 1);
        items[hole] = items[child - 1];
        hole = child - 1;
    }
    while hole > top {
        let parent = (hole - 1) / 2;
        if !less(items[parent], item)? {
            break;
        }
        items[hole] = items[parent];
        hole = parent;
    }
    items[hole] = item;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `values` sorted by `sorter` with `f32`'s `<` (NaN neither less nor
    /// greater), as the values.
    fn sorted(
        values: &[f32],
        sorter: fn(&mut [usize], &mut Less) -> Result<(), RunError>,
    ) -> Vec<f32> {
        let mut items: Vec<usize> = (0..values.len()).collect();
        sorter(&mut items, &mut |a, b| Ok(values[a] < values[b])).unwrap();
        items.iter().map(|&i| values[i]).collect()
    }

    fn same(a: &[f32], b: &[f32]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
    }

    #[test]
    fn nan_under_a_plain_less_orders_as_xla_cpu_does() {
        // What XLA:CPU (jaxlib 0.10.2) returns for this line with
        // `compare(a, b), direction=LT`.
        let nan = f32::NAN;
        let line = [5.0, 3.0, nan, 1.0, 4.0, 2.0, nan, 9.0, 0.0, 8.0, 7.0, 6.0];
        let stable = [1.0, 3.0, 5.0, nan, 2.0, 4.0, nan, 0.0, 6.0, 7.0, 8.0, 9.0];
        let unstable = [0.0, 1.0, 3.0, 5.0, nan, 2.0, 4.0, nan, 6.0, 7.0, 8.0, 9.0];
        assert!(same(&sorted(&line, stable_sort), &stable));
        assert!(same(&sorted(&line, sort), &unstable));
    }

    #[test]
    fn both_sort_any_line_under_a_strict_weak_order() {
        let mut state = 12345u64;
        for n in [0, 1, 2, 7, 8, 16, 17, 100, 1000] {
            let values: Vec<f32> = (0..n)
                .map(|_| {
                    state = state
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    ((state >> 33) % 50) as f32
                })
                .collect();
            let mut expected = values.clone();
            expected.sort_by(f32::total_cmp);
            assert_eq!(sorted(&values, stable_sort), expected, "stable, {n}");
            assert_eq!(sorted(&values, sort), expected, "unstable, {n}");
            // Stable: ties keep their order.
            let mut items: Vec<usize> = (0..n).collect();
            stable_sort(&mut items, &mut |a, b| Ok(values[a] < values[b])).unwrap();
            assert!(
                items
                    .windows(2)
                    .all(|w| values[w[0]] < values[w[1]] || w[0] < w[1])
            );
        }
    }

    #[test]
    fn the_heap_sort_fallback_sorts_too() {
        let values: Vec<f32> = (0..200).map(|i| ((i * 37) % 101) as f32).collect();
        let mut items: Vec<usize> = (0..values.len()).collect();
        heap_sort(&mut items, &mut |a, b| Ok(values[a] < values[b])).unwrap();
        assert!(items.windows(2).all(|w| values[w[0]] <= values[w[1]]));
    }

    #[test]
    fn a_comparator_that_always_holds_ends_without_leaving_the_line() {
        // `direction=LE` over equal keys: XLA:CPU reads past the line here.
        for n in [17, 100, 1000] {
            let mut items: Vec<usize> = (0..n).collect();
            sort(&mut items, &mut |_, _| Ok(true)).unwrap();
            let mut seen = items.clone();
            seen.sort_unstable();
            assert_eq!(seen, (0..n).collect::<Vec<_>>());
        }
    }
}
