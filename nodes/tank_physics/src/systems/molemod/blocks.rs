//! The passive blocks of a MoleMOD lattice as rapier bodies (SPEC 2): cubes with two
//! straight square tunnels (along the lattice's `x` and `z`, crossing in the middle),
//! lying on the floor with friction, joined by a fixed joint where two blocks are screwed
//! together. Built from the planner's lattice (`reconfig_planner::lattice`), so a plan's
//! states map onto the bodies cell by cell.
//!
//! A block is six boxes (the paper's 352-triangle square-tunnel mesh has the same solid):
//! the two side walls (|y| beyond the tunnels) and the four corner columns between the
//! two tunnels. Where the tunnels cross, the `x` tunnel's floor has a hole as wide as a
//! tunnel.

use nalgebra::{Isometry3, Point3, Vector3};
use rapier3d_f64::prelude::*;
use reconfig_planner::lattice::{Cell, Lattice};

/// Size and material of the blocks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlockOptions {
    /// Edge of a block (the lattice pitch), m.
    pub size: f64,
    /// Inner width and height of each square tunnel, m.
    pub tunnel: f64,
    /// Mass of a block, kg.
    pub mass: f64,
    /// Friction coefficient of a block's surfaces against the floor and the mole (a
    /// contact takes the lower of the two).
    pub friction: f64,
    /// Friction coefficient between two blocks (printed plastic on printed plastic); it
    /// replaces the combined figure on block-on-block contacts ([`BlockContacts`]).
    pub block_friction: f64,
}

impl Default for BlockOptions {
    /// 100 mm blocks with 50 mm tunnels (the mole's 40 mm cubes pass with 5 mm to spare
    /// each side); 0.25 kg, a printed shell (assumed: the paper gives no mass); friction
    /// 1.0, so the mole's own surfaces set a contact's friction; 1.0 between two blocks
    /// too. Printed plastic on itself is 0.2-0.4, and at 0.3 a block the push over lands
    /// against a neighbour standing into its cell slides down square, but task 1's chain,
    /// measured at 1.0, then stops in its put down (docs/molemod_execution.md, "Block on
    /// block friction").
    fn default() -> Self {
        Self { size: 0.1, tunnel: 0.05, mass: 0.25, friction: 1.0, block_friction: 1.0 }
    }
}

/// Marks a block's colliders (their `user_data`), so [`BlockContacts`] tells a contact
/// between two blocks from one of a block with the floor or a mole.
const BLOCK_COLLIDER: u128 = u128::from_le_bytes(*b"molemod block   ");

/// The contact hook of a world with blocks: a contact between two blocks takes
/// [`BlockOptions::block_friction`] (a combine rule cannot: the blocks' own figure must
/// stay 1.0 for a gripping head's to set the friction against it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlockContacts {
    /// Friction coefficient of a block-on-block contact.
    pub friction: f64,
}

impl PhysicsHooks for BlockContacts {
    fn modify_solver_contacts(&self, context: &mut ContactModificationContext) {
        let is_block = |handle| context.colliders.get(handle).is_some_and(|c| c.user_data == BLOCK_COLLIDER);
        if is_block(context.collider1) && is_block(context.collider2) {
            for contact in context.solver_contacts.iter_mut() {
                contact.friction = self.friction;
            }
        }
    }
}

/// A lattice the world cannot be built from, or a block or screw it does not have.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BlockError {
    /// Tunnels at least as wide as the block leave no solid.
    #[error("tunnel {tunnel} m does not fit in a {size} m block")]
    BadSize {
        /// Block edge, m.
        size: f64,
        /// Tunnel width, m.
        tunnel: f64,
    },
    /// No block started in this cell.
    #[error("no block at cell {0}")]
    NoBlock(Cell),
    /// The two blocks are not screwed together.
    #[error("blocks {0} and {1} are not screwed together")]
    NotScrewed(Cell, Cell),
    /// The two blocks are not face neighbours where they stand now.
    #[error("blocks {0} and {1} are not face to face")]
    NotNeighbours(Cell, Cell),
    /// The build was stopped from outside ([`Blocks::build_until`]).
    #[error("cancelled while the blocks were being built")]
    Cancelled,
}

/// One block: the cell it started in (its name) and its body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Block {
    /// The cell the block was built in; it keeps this name when it moves.
    pub home: Cell,
    /// Its rigid body.
    pub body: RigidBodyHandle,
}

/// The blocks of a lattice in rapier sets.
#[derive(Clone, Debug)]
pub struct Blocks {
    options: BlockOptions,
    blocks: Vec<Block>,
    screws: Vec<((Cell, Cell), ImpulseJointHandle)>,
}

impl Blocks {
    /// One dynamic body per block of `lattice`, standing in its cell on a floor at z = 0,
    /// and a fixed joint between every two face neighbours (all blocks start screwed).
    pub fn build(
        lattice: &Lattice,
        options: BlockOptions,
        bodies: &mut RigidBodySet,
        colliders: &mut ColliderSet,
        impulse_joints: &mut ImpulseJointSet,
    ) -> Result<Self, BlockError> {
        Self::build_until(lattice, options, bodies, colliders, impulse_joints, &|| false)
    }

    /// [`Blocks::build`] that stops with [`BlockError::Cancelled`] as soon as `cancelled`
    /// says so (checked before each block's body and before each block's screws), leaving
    /// what it added in the sets.
    pub fn build_until(
        lattice: &Lattice,
        options: BlockOptions,
        bodies: &mut RigidBodySet,
        colliders: &mut ColliderSet,
        impulse_joints: &mut ImpulseJointSet,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Self, BlockError> {
        if !(options.tunnel > 0.0 && options.tunnel < options.size) {
            return Err(BlockError::BadSize { size: options.size, tunnel: options.tunnel });
        }
        let mut blocks = Self { options, blocks: Vec::new(), screws: Vec::new() };
        let parts = blocks.parts();
        let volume: f64 = parts.iter().map(|(half, _)| 8.0 * half.x * half.y * half.z).sum();
        for home in lattice.block_cells() {
            if cancelled() {
                return Err(BlockError::Cancelled);
            }
            let body = bodies.insert(RigidBodyBuilder::dynamic().translation(blocks.centre(&home)).can_sleep(false).build());
            for (half, at) in &parts {
                let part = ColliderBuilder::cuboid(half.x, half.y, half.z)
                    .translation(*at)
                    .mass(options.mass * 8.0 * half.x * half.y * half.z / volume)
                    .friction(options.friction)
                    .friction_combine_rule(CoefficientCombineRule::Min)
                    .user_data(BLOCK_COLLIDER)
                    .active_hooks(ActiveHooks::MODIFY_SOLVER_CONTACTS)
                    .build();
                colliders.insert_with_parent(part, body, bodies);
            }
            blocks.blocks.push(Block { home, body });
        }
        let homes: Vec<Cell> = blocks.blocks.iter().map(|b| b.home).collect();
        for (i, a) in homes.iter().enumerate() {
            if cancelled() {
                return Err(BlockError::Cancelled);
            }
            for b in &homes[i + 1..] {
                if a.manhattan(b) == 1 {
                    blocks.screw(*a, *b, bodies, impulse_joints)?;
                }
            }
        }
        Ok(blocks)
    }

    /// The six boxes of a block: half extents and centre in the block's frame, m.
    fn parts(&self) -> Vec<(Vector3<f64>, Vector3<f64>)> {
        let (h, t) = (0.5 * self.options.size, 0.5 * self.options.tunnel);
        // Wall thickness beside a tunnel, halved.
        let w = 0.5 * (h - t);
        let mut parts =
            vec![(Vector3::new(h, w, h), Vector3::new(0.0, t + w, 0.0)), (Vector3::new(h, w, h), Vector3::new(0.0, -t - w, 0.0))];
        for sx in [-1.0, 1.0] {
            for sz in [-1.0, 1.0] {
                parts.push((Vector3::new(w, t, w), Vector3::new(sx * (t + w), 0.0, sz * (t + w))));
            }
        }
        parts
    }

    /// The build options.
    pub fn options(&self) -> &BlockOptions {
        &self.options
    }

    /// The contact hook a world stepping these blocks needs ([`BlockContacts`]).
    pub fn contacts(&self) -> BlockContacts {
        BlockContacts { friction: self.options.block_friction }
    }

    /// Centre of `cell` in the world (cell (0, 0, 0) stands on the floor at the origin), m.
    pub fn centre(&self, cell: &Cell) -> Vector3<f64> {
        let s = self.options.size;
        Vector3::new(cell.x as f64 * s, cell.y as f64 * s, (cell.z as f64 + 0.5) * s)
    }

    /// Every block.
    pub fn blocks(&self) -> &[Block] {
        &self.blocks
    }

    /// The block that started in `home`.
    pub fn block(&self, home: &Cell) -> Result<Block, BlockError> {
        self.blocks.iter().find(|b| b.home == *home).copied().ok_or(BlockError::NoBlock(*home))
    }

    /// The block a segment reaches into deepest (where the blocks are now), with how long a
    /// part of the segment lies inside its cube, m; `None` if it reaches into none. A head
    /// along its axis is such a segment: only through a tunnel's mouth can it lie partly in a
    /// block.
    pub fn block_engaging(&self, from: &Point3<f64>, to: &Point3<f64>, bodies: &RigidBodySet) -> Option<(Block, f64)> {
        let h = 0.5 * self.options.size;
        self.blocks
            .iter()
            .filter_map(|b| {
                let body = bodies.get(b.body)?;
                let (p, q) = (body.position().inverse_transform_point(from), body.position().inverse_transform_point(to));
                let inside = segment_in_cube(&p.coords, &q.coords, h);
                (inside > 0.0).then_some((*b, inside))
            })
            .max_by(|a, b| a.1.total_cmp(&b.1))
    }

    /// World pose of the block that started in `home`.
    pub fn pose(&self, home: &Cell, bodies: &RigidBodySet) -> Result<Isometry3<f64>, BlockError> {
        let block = self.block(home)?;
        bodies.get(block.body).map(|b| *b.position()).ok_or(BlockError::NoBlock(*home))
    }

    /// Whether the blocks that started in `a` and `b` are screwed together.
    pub fn screwed(&self, a: &Cell, b: &Cell) -> bool {
        self.screws.iter().any(|((p, q), _)| (p == a && q == b) || (p == b && q == a))
    }

    /// Screws two face-neighbouring blocks together where they stand: a fixed joint
    /// between them (a no-op if they already are).
    pub fn screw(&mut self, a: Cell, b: Cell, bodies: &RigidBodySet, impulse_joints: &mut ImpulseJointSet) -> Result<(), BlockError> {
        if self.screwed(&a, &b) {
            return Ok(());
        }
        let (pa, pb) = (self.pose(&a, bodies)?, self.pose(&b, bodies)?);
        let gap = (pb.translation.vector - pa.translation.vector).norm();
        if (gap - self.options.size).abs() > 0.1 * self.options.size {
            return Err(BlockError::NotNeighbours(a, b));
        }
        let (ba, bb) = (self.block(&a)?, self.block(&b)?);
        // The joint holds b where it is now, seen from a.
        let joint = GenericJointBuilder::new(JointAxesMask::LOCKED_FIXED_AXES)
            .local_frame1(pa.inverse() * pb)
            .local_frame2(Isometry3::identity())
            .contacts_enabled(false)
            .build();
        let handle = impulse_joints.insert(ba.body, bb.body, joint, true);
        self.screws.push(((a, b), handle));
        Ok(())
    }

    /// Unscrews two blocks: their fixed joint is removed.
    pub fn unscrew(&mut self, a: &Cell, b: &Cell, impulse_joints: &mut ImpulseJointSet) -> Result<(), BlockError> {
        let index =
            self.screws.iter().position(|((p, q), _)| (p == a && q == b) || (p == b && q == a)).ok_or(BlockError::NotScrewed(*a, *b))?;
        let (_, handle) = self.screws.swap_remove(index);
        impulse_joints.remove(handle, true);
        Ok(())
    }

    /// How far each block is from the centre of its home cell, m (in `blocks` order).
    pub fn offsets(&self, bodies: &RigidBodySet) -> Vec<(Cell, f64)> {
        self.blocks
            .iter()
            .map(|b| {
                let at = bodies.get(b.body).map_or(Vector3::repeat(f64::NAN), |body| *body.translation());
                (b.home, (at - self.centre(&b.home)).norm())
            })
            .collect()
    }
}

/// How long a part of the segment from `p` to `q` (m) lies inside the cube of half-side `h`
/// centred at the origin, m (the segment clipped against the cube's three slabs).
fn segment_in_cube(p: &Vector3<f64>, q: &Vector3<f64>, h: f64) -> f64 {
    let d = q - p;
    let (mut t0, mut t1) = (0.0_f64, 1.0_f64);
    for i in 0..3 {
        if d[i].abs() < 1e-15 {
            if p[i].abs() >= h {
                return 0.0;
            }
            continue;
        }
        let (a, b) = ((-h - p[i]) / d[i], (h - p[i]) / d[i]);
        t0 = t0.max(a.min(b));
        t1 = t1.min(a.max(b));
    }
    (t1 - t0).max(0.0) * d.norm()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_segment_is_clipped_to_the_part_inside_the_cube() {
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        let v = |x, y, z| Vector3::new(x, y, z);
        // A 40 mm head along x whose centre is 4 mm out of the +x face of a 100 mm cube.
        assert!(close(segment_in_cube(&v(0.034, 0.0, 0.0), &v(0.074, 0.0, 0.0), 0.05), 0.016));
        assert!(close(segment_in_cube(&v(0.0, 0.0, 0.0), &v(0.04, 0.0, 0.0), 0.05), 0.04));
        assert!(close(segment_in_cube(&v(0.06, 0.0, 0.0), &v(0.1, 0.0, 0.0), 0.05), 0.0));
        // Beside the cube, parallel to a face: nothing inside.
        assert!(close(segment_in_cube(&v(-0.1, 0.06, 0.0), &v(0.1, 0.06, 0.0), 0.05), 0.0));
        // Diagonal through a corner region: the clipped length along the segment.
        assert!(close(segment_in_cube(&v(0.03, 0.03, 0.0), &v(0.07, 0.07, 0.0), 0.05), 0.02 * 2f64.sqrt()));
    }

    #[test]
    fn a_block_is_its_cube_less_two_crossing_tunnels() {
        let lattice = Lattice::from_picture("#").expect("picture");
        let (mut bodies, mut colliders, mut joints) = (RigidBodySet::new(), ColliderSet::new(), ImpulseJointSet::new());
        let blocks = Blocks::build(&lattice, BlockOptions::default(), &mut bodies, &mut colliders, &mut joints).expect("builds");
        let body = &bodies[blocks.blocks()[0].body];
        assert!((body.mass() - 0.25).abs() < 1e-9, "{}", body.mass());
        let solid =
            |p: Point3<f64>| colliders.iter().any(|(_, c)| c.shape().contains_point(c.position(), &(p + Vector3::new(0.0, 0.0, 0.05))));
        // Inside both tunnels and where they cross: empty; the corners and walls: solid.
        assert!(!solid(Point3::new(0.0, 0.0, 0.0)));
        assert!(!solid(Point3::new(0.045, 0.0, 0.0)) && !solid(Point3::new(0.0, 0.0, 0.045)));
        assert!(!solid(Point3::new(0.0, 0.0, -0.03)), "the hole in the x tunnel's floor");
        assert!(solid(Point3::new(0.04, 0.0, -0.03)) && solid(Point3::new(0.04, 0.0, 0.03)));
        assert!(solid(Point3::new(0.0, 0.03, 0.0)) && solid(Point3::new(0.0, -0.03, 0.0)));
    }

    #[test]
    fn neighbours_start_screwed_and_unscrew_once() {
        let lattice = Lattice::from_picture("#.\n##").expect("picture");
        let (mut bodies, mut colliders, mut joints) = (RigidBodySet::new(), ColliderSet::new(), ImpulseJointSet::new());
        let mut blocks = Blocks::build(&lattice, BlockOptions::default(), &mut bodies, &mut colliders, &mut joints).expect("builds");
        let (a, b, c) = (Cell::planar(0, 0), Cell::planar(1, 0), Cell::planar(0, 1));
        assert!(blocks.screwed(&a, &b) && blocks.screwed(&c, &a) && !blocks.screwed(&b, &c));
        assert_eq!(joints.len(), 2);
        blocks.unscrew(&c, &a, &mut joints).expect("screwed");
        assert_eq!(blocks.unscrew(&a, &c, &mut joints), Err(BlockError::NotScrewed(a, c)));
        assert_eq!(blocks.screw(b, c, &bodies, &mut joints), Err(BlockError::NotNeighbours(b, c)));
        assert_eq!(joints.len(), 1);
        assert!((blocks.centre(&c) - Vector3::new(0.0, 0.0, 0.15)).norm() < 1e-12);
    }

    /// How far the top block of an unscrewed stack of two slides when it starts at
    /// `speed` (m/s) along x, relative to the block under it, m, stepped with
    /// [`BlockContacts`] at `block_friction`.
    fn slide_on_a_block(block_friction: f64, speed: f64) -> f64 {
        let lattice = Lattice::from_picture("#\n#").expect("picture");
        let (mut bodies, mut colliders, mut joints) = (RigidBodySet::new(), ColliderSet::new(), ImpulseJointSet::new());
        let floor = bodies.insert(RigidBodyBuilder::fixed().translation(Vector3::new(0.0, 0.0, -0.05)).build());
        // The floor holds the bottom block at twice the top's load.
        colliders.insert_with_parent(ColliderBuilder::cuboid(1.0, 1.0, 0.05).friction(1.0).build(), floor, &mut bodies);
        let options = BlockOptions { block_friction, ..BlockOptions::default() };
        let mut blocks = Blocks::build(&lattice, options, &mut bodies, &mut colliders, &mut joints).expect("builds");
        let (top, bottom) = (Cell::planar(0, 1), Cell::planar(0, 0));
        blocks.unscrew(&top, &bottom, &mut joints).expect("screwed");
        let relative = |bodies: &RigidBodySet| {
            blocks.pose(&top, bodies).expect("top").translation.x - blocks.pose(&bottom, bodies).expect("bottom").translation.x
        };
        let params = IntegrationParameters { dt: 0.002, length_unit: 0.01, ..IntegrationParameters::default() };
        let (mut pipeline, mut islands, mut broad_phase, mut narrow_phase) =
            (PhysicsPipeline::new(), IslandManager::new(), BroadPhaseBvh::new(), NarrowPhase::new());
        let (mut multibody_joints, mut ccd) = (MultibodyJointSet::new(), CCDSolver::new());
        let hooks = blocks.contacts();
        let mut start = 0.0;
        // 0.2 s to settle on the contacts, then the push and 0.5 s to slide and stop.
        for step in 0..350 {
            if step == 100 {
                start = relative(&bodies);
                bodies[blocks.block(&top).expect("top").body].set_linvel(Vector3::new(speed, 0.0, 0.0), true);
            }
            pipeline.step(
                &Vector3::new(0.0, 0.0, -9.81),
                &params,
                &mut islands,
                &mut broad_phase,
                &mut narrow_phase,
                &mut bodies,
                &mut colliders,
                &mut joints,
                &mut multibody_joints,
                &mut ccd,
                &hooks,
                &(),
            );
        }
        relative(&bodies) - start
    }

    #[test]
    fn a_block_slides_on_a_block_at_the_block_on_block_friction() {
        // Coulomb: a block sliding from v stops after v^2 / (2 mu g). Up to 0.5 only: the
        // stop's torque about the leading edge nears tipping a cube as mu nears 1, and
        // rapier's contacts then stop it sooner (measured: 0.71 of the distance at 0.7,
        // 0.29 at 1.0).
        let speed = 0.1;
        for friction in [0.2, 0.3, 0.5] {
            let expected = speed * speed / (2.0 * friction * 9.81);
            let slid = slide_on_a_block(friction, speed);
            assert!((slid - expected).abs() < 0.2 * expected, "friction {friction}: slid {slid} m, Coulomb {expected} m");
        }
    }
}
