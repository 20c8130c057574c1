//! A vertical list that draws only the rows in view (the conversation's).
//! Rows keep their measured heights between frames (estimated until first
//! drawn), so a list of thousands of rows costs what its visible part costs.

use egui::{Align, Id, Layout, Rect, Ui, UiBuilder, pos2, vec2};

use crate::ui::theme;

/// The height of a row not drawn yet.
const ESTIMATED_ROW_HEIGHT: f32 = 64.0;

/// Row heights, measured when drawn, with their running sums.
#[derive(Clone, Default)]
struct RowHeights {
    heights: Vec<f32>,
    /// `tops[i]`: where row `i` starts; one more entry than rows.
    tops: Vec<f32>,
    stale: bool,
}

impl RowHeights {
    fn resize(&mut self, num_rows: usize) {
        if self.heights.len() != num_rows {
            self.heights.resize(num_rows, ESTIMATED_ROW_HEIGHT);
            self.stale = true;
        }
    }

    fn refresh(&mut self) {
        if !self.stale && self.tops.len() == self.heights.len() + 1 {
            return;
        }
        self.tops.clear();
        self.tops.reserve(self.heights.len() + 1);
        let mut y = 0.0;
        self.tops.push(y);
        for h in &self.heights {
            y += h;
            self.tops.push(y);
        }
        self.stale = false;
    }

    fn top(&self, row: usize) -> f32 {
        self.tops[row]
    }

    fn total(&self) -> f32 {
        self.tops.last().copied().unwrap_or(0.0)
    }

    /// The row at offset `y` (clamped to the rows).
    fn row_at(&self, y: f32) -> usize {
        let after = self.tops.partition_point(|&top| top <= y);
        after
            .saturating_sub(1)
            .min(self.heights.len().saturating_sub(1))
    }

    /// Records a measured height; returns whether it changed.
    fn set(&mut self, row: usize, height: f32) -> bool {
        let changed = (self.heights[row] - height).abs() > 0.5;
        if changed {
            self.heights[row] = height;
            self.stale = true;
        }
        changed
    }
}

/// A vertical list that draws only the rows in view, scrolled to bring row
/// `scroll_to` into view. Returns whether a row's measured height changed
/// (the rows moved: a scroll asked for this frame may need asking again).
pub(super) fn virtual_rows_ui(
    ui: &mut Ui,
    id: Id,
    num_rows: usize,
    scroll_to: Option<usize>,
    mut row_ui: impl FnMut(&mut Ui, usize),
) -> bool {
    let heights_id = id.with("heights");
    let mut heights = ui
        .ctx()
        .data_mut(|d| d.remove_temp::<RowHeights>(heights_id))
        .unwrap_or_default();
    heights.resize(num_rows);
    heights.refresh();
    let mut remeasured = false;
    egui::ScrollArea::vertical()
        .id_salt(id)
        .auto_shrink(false)
        .show_viewport(ui, |ui, viewport| {
            ui.set_height(heights.total());
            let origin = ui.max_rect().min;
            let width = ui.available_width();
            let mut i = heights.row_at(viewport.min.y);
            while i < num_rows && heights.top(i) < viewport.max.y {
                let top = origin.y + heights.top(i);
                let rect = Rect::from_min_size(pos2(origin.x, top), vec2(width, 1.0e6));
                let mut child = ui.new_child(
                    UiBuilder::new()
                        .max_rect(rect)
                        .layout(Layout::top_down(Align::Min))
                        .id_salt(("row", i)),
                );
                row_ui(&mut child, i);
                let height = child.min_rect().height() + theme::MESSAGE_GAP;
                remeasured |= heights.set(i, height);
                i += 1;
            }
            if let Some(target) = scroll_to.filter(|&t| t < num_rows) {
                let top = origin.y + heights.top(target);
                let rect =
                    Rect::from_min_size(pos2(origin.x, top), vec2(width, heights.heights[target]));
                ui.scroll_to_rect(rect, None);
            }
        });
    if remeasured {
        // Rows below a re-measured one move: draw again with the new sums.
        ui.ctx().request_repaint();
    }
    ui.ctx().data_mut(|d| d.insert_temp(heights_id, heights));
    remeasured
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_heights_find_rows_by_offset() {
        let mut heights = RowHeights::default();
        heights.resize(3);
        heights.refresh();
        assert_eq!(heights.total(), 3.0 * ESTIMATED_ROW_HEIGHT);
        assert!(heights.set(1, 10.0));
        assert!(!heights.set(1, 10.2));
        heights.refresh();
        assert_eq!(heights.top(2), ESTIMATED_ROW_HEIGHT + 10.0);
        assert_eq!(heights.row_at(0.0), 0);
        assert_eq!(heights.row_at(ESTIMATED_ROW_HEIGHT + 5.0), 1);
        assert_eq!(heights.row_at(1.0e9), 2);
    }
}
