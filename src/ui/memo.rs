//! Panels that have no state of their own keep what they derive from the
//! cursor in egui's memory, in a [`Memo`].

use egui::Id;

use crate::app_model::memo::Memo;

/// A [`Memo`] kept in egui's memory under `id`: panels that have no state of
/// their own keep what they derive from the cursor there.
pub fn memoized<K, V>(
    ctx: &egui::Context,
    id: Id,
    generation: u64,
    key: K,
    compute: impl FnOnce() -> V,
) -> V
where
    K: PartialEq + Clone + Send + Sync + 'static,
    V: Clone + Send + Sync + 'static,
{
    if let Some(value) = ctx.data(|d| {
        d.get_temp::<Memo<K, V>>(id)
            .and_then(|memo| memo.get(generation, &key).cloned())
    }) {
        return value;
    }
    let value = compute();
    ctx.data_mut(|d| {
        d.get_temp_mut_or_default::<Memo<K, V>>(id)
            .set(generation, key, value.clone());
    });
    value
}
