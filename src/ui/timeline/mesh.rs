//! Shapes tessellated once and kept between frames (issue 14). While the
//! user scrubs, the timeline's range does not change, and neither do the
//! thousands of marks, rings and bars it draws; egui tessellates every
//! shape again each frame (at 10,000,000 events, about a quarter of a
//! frame). A part drawn as a [`Mesh`] kept while its key is the same costs
//! a copy of its vertices instead. Small filled circles are better left to
//! egui: it draws them as a square of four vertices from its font atlas,
//! which it does not lend ([`tessellate`] would make each a path of dozens).

use std::sync::Arc;

use egui::Shape;
use egui::epaint::{Mesh, Tessellator};

/// Tessellates `shapes` into one mesh, with the context's tessellation
/// options and pixels per point, as egui does at the end of a frame (but
/// for small filled circles, drawn as paths rather than from the font
/// atlas's discs, which the context does not lend).
pub(super) fn tessellate(ctx: &egui::Context, shapes: Vec<Shape>) -> Mesh {
    let options = ctx.tessellation_options(|o| *o);
    let texture_size = ctx.fonts(|f| f.font_image_size());
    let mut tessellator =
        Tessellator::new(ctx.pixels_per_point(), options, texture_size, Vec::new());
    let mut mesh = Mesh::default();
    for shape in shapes {
        tessellator.tessellate_shape(shape, &mut mesh);
    }
    mesh
}

/// Meshes (layers drawn one over the other) kept with what they were made
/// for.
#[derive(Clone)]
pub(super) struct Kept<K> {
    key: K,
    pixels_per_point: f32,
    meshes: Vec<Arc<Mesh>>,
}

impl<K: PartialEq> Kept<K> {
    /// The meshes of `key`: the kept ones if they were made for the same key
    /// and pixels per point, else each layer of `layers()` tessellated, kept
    /// in `slot`.
    pub(super) fn get_or_make(
        slot: &mut Option<Self>,
        ctx: &egui::Context,
        key: K,
        layers: impl FnOnce() -> Vec<Vec<Shape>>,
    ) -> Vec<Arc<Mesh>> {
        let pixels_per_point = ctx.pixels_per_point();
        if let Some(kept) = slot
            && kept.key == key
            && kept.pixels_per_point == pixels_per_point
        {
            return kept.meshes.clone();
        }
        let meshes: Vec<Arc<Mesh>> = layers()
            .into_iter()
            .map(|shapes| Arc::new(tessellate(ctx, shapes)))
            .collect();
        *slot = Some(Self {
            key,
            pixels_per_point,
            meshes: meshes.clone(),
        });
        meshes
    }

    /// The meshes kept.
    #[cfg(test)]
    pub(super) fn meshes(&self) -> &[Arc<Mesh>] {
        &self.meshes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_mesh_is_made_again_only_when_its_key_changes() {
        let ctx = egui::Context::default();
        let mut output = ctx.run_ui(Default::default(), |_| {});
        output.textures_delta.clear();
        let ring = || {
            let stroke = egui::Stroke::new(1.5, egui::Color32::RED);
            vec![vec![Shape::circle_stroke(
                egui::pos2(10.0, 10.0),
                3.0,
                stroke,
            )]]
        };
        let mut slot = None;
        let mut made = 0;
        let mut get = |slot: &mut Option<Kept<u32>>, key| {
            Kept::get_or_make(slot, &ctx, key, || {
                made += 1;
                ring()
            })
        };
        let first = get(&mut slot, 1).remove(0);
        let again = get(&mut slot, 1).remove(0);
        assert!(Arc::ptr_eq(&first, &again));
        let other = get(&mut slot, 2).remove(0);
        assert!(!Arc::ptr_eq(&first, &other));
        assert_eq!(made, 2);
        // What egui would have drawn: vertices around the ring's centre.
        assert!(!first.vertices.is_empty() && first.is_valid());
        let bounds = first.calc_bounds();
        assert!(bounds.contains(egui::pos2(10.0, 10.0)) && bounds.width() < 12.0);
    }
}
