// Loads model files with libsdformat (SDFormat, or URDF through libsdformat's URDF
// converter, as Gazebo does), warnings and unknown elements treated as errors, and prints
// what the library understood, one record per line (names hold no spaces):
//   library <version> lumped_frames <0|1>
//   model <name> static <0|1>
//   link <name> mass <kg> pose <x y z m> <qw qx qy qz>
//   visual <link> <visual name>
//   joint <name> <type> <parent> <child>
//   frame <name> <attached_to> pose <x y z m> <qw qx qy qz>
// Poses are resolved in the model frame (__model__). `lumped_frames` says whether this
// libsdformat keeps a `<frame>` for each link and joint that URDF fixed-joint reduction
// merges away (added in libsdformat 9.9 and 12.7; 12.3 keeps none), found by loading a
// two-link URDF rather than trusting version numbers. Used by models_files.rs; exit status 1 when any file fails to load.
#include <sdf/sdf.hh>

#include <iomanip>
#include <iostream>
#include <string>

namespace {
#if SDF_MAJOR_VERSION >= 13
using Pose = gz::math::Pose3d;
const std::string& parent_of(const sdf::Joint& j) { return j.ParentName(); }
const std::string& child_of(const sdf::Joint& j) { return j.ChildName(); }
#else
using Pose = ignition::math::Pose3d;
const std::string& parent_of(const sdf::Joint& j) { return j.ParentLinkName(); }
const std::string& child_of(const sdf::Joint& j) { return j.ChildLinkName(); }
#endif

const char* joint_type(sdf::JointType type) {
  switch (type) {
    case sdf::JointType::FIXED: return "fixed";
    case sdf::JointType::REVOLUTE: return "revolute";
    case sdf::JointType::PRISMATIC: return "prismatic";
    case sdf::JointType::UNIVERSAL: return "universal";
    default: return "other";
  }
}

// Prints " pose x y z qw qx qy qz", or reports the resolution errors and returns false.
bool print_pose(const char* file, const std::string& what, const sdf::SemanticPose& semantic) {
  Pose pose;
  const sdf::Errors errors = semantic.Resolve(pose, "__model__");
  for (const auto& e : errors) std::cerr << file << ": pose of " << what << ": " << e.Message() << "\n";
  const auto& p = pose.Pos();
  const auto& q = pose.Rot();
  std::cout << " pose " << p.X() << " " << p.Y() << " " << p.Z() << " " << q.W() << " " << q.X() << " " << q.Y() << " "
            << q.Z() << "\n";
  return errors.empty();
}

// Whether fixed-joint reduction of a URDF leaves a <frame> named after the merged link.
bool keeps_lumped_frames() {
  sdf::Root root;
  const sdf::Errors errors = root.LoadSdfString(
      "<robot name='probe'>"
      "<link name='body'><inertial><mass value='1'/>"
      "<inertia ixx='1' ixy='0' ixz='0' iyy='1' iyz='0' izz='1'/></inertial></link>"
      "<link name='mount'/>"
      "<joint name='mount_joint' type='fixed'><parent link='body'/><child link='mount'/></joint>"
      "</robot>");
  return errors.empty() && root.Model() != nullptr && root.Model()->FrameNameExists("mount");
}
}  // namespace

int main(int argc, char** argv) {
  std::cout << std::setprecision(17);
  std::cout << "library " << SDF_VERSION_FULL << " lumped_frames " << keeps_lumped_frames() << "\n";
  sdf::ParserConfig config;
  config.SetWarningsPolicy(sdf::EnforcementPolicy::ERR);
  config.SetUnrecognizedElementsPolicy(sdf::EnforcementPolicy::ERR);
  int failed = 0;
  for (int i = 1; i < argc; ++i) {
    const char* file = argv[i];
    sdf::Root root;
    const sdf::Errors errors = root.Load(file, config);
    for (const auto& e : errors) std::cerr << file << ": " << e.Message() << "\n";
    const sdf::Model* model = root.Model();
    if (!errors.empty() || model == nullptr) {
      if (model == nullptr) std::cerr << file << ": no <model>\n";
      ++failed;
      continue;
    }
    bool ok = true;
    std::cout << "model " << model->Name() << " static " << model->Static() << "\n";
    for (uint64_t l = 0; l < model->LinkCount(); ++l) {
      const sdf::Link* link = model->LinkByIndex(l);
      std::cout << "link " << link->Name() << " mass " << link->Inertial().MassMatrix().Mass();
      ok = print_pose(file, "link " + link->Name(), link->SemanticPose()) && ok;
      for (uint64_t v = 0; v < link->VisualCount(); ++v) {
        std::cout << "visual " << link->Name() << " " << link->VisualByIndex(v)->Name() << "\n";
      }
    }
    for (uint64_t j = 0; j < model->JointCount(); ++j) {
      const sdf::Joint* joint = model->JointByIndex(j);
      std::cout << "joint " << joint->Name() << " " << joint_type(joint->Type()) << " " << parent_of(*joint) << " "
                << child_of(*joint) << "\n";
    }
    for (uint64_t f = 0; f < model->FrameCount(); ++f) {
      const sdf::Frame* frame = model->FrameByIndex(f);
      // An empty attached_to means the model frame.
      const std::string& attached_to = frame->AttachedTo().empty() ? std::string("__model__") : frame->AttachedTo();
      std::cout << "frame " << frame->Name() << " " << attached_to;
      ok = print_pose(file, "frame " + frame->Name(), frame->SemanticPose()) && ok;
    }
    if (!ok) ++failed;
  }
  return failed == 0 ? 0 : 1;
}
