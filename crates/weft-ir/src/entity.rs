//! Typed handles and the dense maps keyed by them.
//!
//! A handle is a `u32` newtype made by [`entity!`](crate::entity!). Handles are indices into an
//! [`EntityVec`] owned by the [`Module`](crate::Module); they are never reused after
//! the entity they name is removed from a computation, so a handle stays a valid,
//! unambiguous name for the whole life of the module (XLA's schedule keys sequences by
//! unique ids because pointers may be recycled; never-reused handles make that
//! workaround unnecessary).
//!
//! Each handle prints with a recognisable prefix in debug output (`inst12`, `comp3`).

use std::fmt;
use std::marker::PhantomData;
use std::ops::{Index, IndexMut};

/// A type that can key an [`EntityVec`].
pub trait EntityRef: Copy + Eq {
    /// Makes a handle from a dense index.
    fn new(index: usize) -> Self;
    /// The dense index of this handle.
    fn index(self) -> usize;
}

/// Declares a `u32` handle type with a debug prefix.
#[macro_export]
macro_rules! entity {
    ($(#[$attr:meta])* $name:ident, $prefix:literal) => {
        $(#[$attr])*
        #[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(u32);

        impl $crate::entity::EntityRef for $name {
            #[inline]
            fn new(index: usize) -> Self {
                debug_assert!(index < u32::MAX as usize);
                $name(index as u32)
            }
            #[inline]
            fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl ::std::fmt::Debug for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

/// A dense vector that owns the entities it is keyed by (Cranelift's `PrimaryMap`).
#[derive(Clone, PartialEq)]
pub struct EntityVec<K: EntityRef, V> {
    items: Vec<V>,
    key: PhantomData<K>,
}

impl<K: EntityRef, V> EntityVec<K, V> {
    /// An empty vector.
    pub fn new() -> Self {
        EntityVec {
            items: Vec::new(),
            key: PhantomData,
        }
    }

    /// An empty vector with room for `capacity` entities.
    pub fn with_capacity(capacity: usize) -> Self {
        EntityVec {
            items: Vec::with_capacity(capacity),
            key: PhantomData,
        }
    }

    /// Makes room for `additional` more entities.
    pub fn reserve(&mut self, additional: usize) {
        self.items.reserve(additional);
    }

    /// Appends an entity and returns its new handle.
    pub fn push(&mut self, value: V) -> K {
        let key = K::new(self.items.len());
        self.items.push(value);
        key
    }

    /// The handle the next [`push`](Self::push) will return.
    pub fn next_key(&self) -> K {
        K::new(self.items.len())
    }

    /// How many entities were ever made.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether no entity was ever made.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Whether `key` names an entity of this vector.
    pub fn is_valid(&self, key: K) -> bool {
        key.index() < self.items.len()
    }

    /// The entity `key` names, if any.
    pub fn get(&self, key: K) -> Option<&V> {
        self.items.get(key.index())
    }

    /// All handles, in creation order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = K> + ExactSizeIterator + use<K, V> {
        (0..self.items.len()).map(K::new)
    }

    /// All `(handle, entity)` pairs, in creation order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (K, &V)> + ExactSizeIterator {
        self.items.iter().enumerate().map(|(i, v)| (K::new(i), v))
    }

    /// All entities, in creation order.
    pub fn values(&self) -> std::slice::Iter<'_, V> {
        self.items.iter()
    }
}

impl<K: EntityRef, V> Default for EntityVec<K, V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: EntityRef, V> Index<K> for EntityVec<K, V> {
    type Output = V;
    #[inline]
    fn index(&self, key: K) -> &V {
        &self.items[key.index()]
    }
}

impl<K: EntityRef, V> IndexMut<K> for EntityVec<K, V> {
    #[inline]
    fn index_mut(&mut self, key: K) -> &mut V {
        &mut self.items[key.index()]
    }
}

impl<K: EntityRef + fmt::Debug, V: fmt::Debug> fmt::Debug for EntityVec<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// Side data keyed by handles of another [`EntityVec`] (Cranelift's `SecondaryMap`):
/// every key reads as `default` until it is set.
#[derive(Clone, Debug)]
pub struct SecondaryMap<K: EntityRef, V: Clone> {
    items: Vec<V>,
    default: V,
    key: PhantomData<K>,
}

impl<K: EntityRef, V: Clone> SecondaryMap<K, V> {
    /// A map where every key reads as `default`.
    pub fn with_default(default: V) -> Self {
        SecondaryMap {
            items: Vec::new(),
            default,
            key: PhantomData,
        }
    }

    /// The value for `key`.
    #[inline]
    pub fn get(&self, key: K) -> &V {
        self.items.get(key.index()).unwrap_or(&self.default)
    }

    /// Sets the value for `key`.
    pub fn set(&mut self, key: K, value: V) {
        let index = key.index();
        if index >= self.items.len() {
            self.items.resize(index + 1, self.default.clone());
        }
        self.items[index] = value;
    }
}
