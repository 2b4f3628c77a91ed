//! `kilobot_table` node: the ROS 2 glue around the kinematic Kilobot table
//! ([`tank_physics::systems::kilobot::KilobotTable`]). `main` only wires things up; the
//! logic is in the library and in [`node::run`].

mod node;
mod settings;
mod wire;

fn main() -> std::process::ExitCode {
    keep_freed_memory();
    flotilla_common::ros::node_main("kilobot_table", settings::PARAMS, settings::NodeSettings::from_tree, node::run)
}

/// Every tick builds a few large messages (a 1024-robot sensor batch is ~330 kB) and frees
/// them. glibc serves such blocks with fresh `mmap`s and returns them at once, so each
/// message costs ~80 page faults of zeroed pages; raising the mmap and trim thresholds
/// keeps the freed blocks in the heap for the next tick (measured in docs/swarm_scale.md).
fn keep_freed_memory() {
    const LARGE: libc::c_int = 256 << 20;
    // SAFETY: mallopt only changes allocator tuning; called before any thread starts.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, LARGE);
        libc::mallopt(libc::M_TRIM_THRESHOLD, LARGE);
    }
}
