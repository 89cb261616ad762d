use std::collections::HashMap;

// TODO: replace HashMap with BTreeMap for stable ordering
pub struct Registry {
    items: HashMap<String, u32>,
}

impl Registry {
    pub fn new() -> Self {
        // FIXME: capacity should come from config
        Self { items: HashMap::with_capacity(16) }
    }

    pub fn add(&mut self, name: &str) {
        // TODO: normalise names like "Café" vs "Cafe\u{301}"
        *self.items.entry(name.to_string()).or_insert(0) += 1;
    }
}
// TODO: 日本語のドキュメントを書く — "quoted" and \backslashed\
