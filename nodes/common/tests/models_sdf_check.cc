// Loads SDF files with libsdformat, warnings and unknown elements treated as errors, and
// prints what the library understood: one "model" line, then one "link" / "joint" /
// "frame" line per element. Used by models_files.rs; exit status 1 when any file fails.
#include <sdf/sdf.hh>

#include <iomanip>
#include <iostream>

namespace {
const char* joint_type(sdf::JointType type) {
  switch (type) {
    case sdf::JointType::FIXED: return "fixed";
    case sdf::JointType::REVOLUTE: return "revolute";
    case sdf::JointType::PRISMATIC: return "prismatic";
    case sdf::JointType::UNIVERSAL: return "universal";
    default: return "other";
  }
}
}  // namespace

int main(int argc, char** argv) {
  std::cout << std::setprecision(17);
  sdf::ParserConfig config;
  config.SetWarningsPolicy(sdf::EnforcementPolicy::ERR);
  config.SetUnrecognizedElementsPolicy(sdf::EnforcementPolicy::ERR);
  int failed = 0;
  for (int i = 1; i < argc; ++i) {
    sdf::Root root;
    const sdf::Errors errors = root.Load(argv[i], config);
    for (const auto& e : errors) std::cerr << argv[i] << ": " << e.Message() << "\n";
    const sdf::Model* model = root.Model();
    if (!errors.empty() || model == nullptr) {
      if (model == nullptr) std::cerr << argv[i] << ": no <model>\n";
      ++failed;
      continue;
    }
    std::cout << "model " << model->Name() << " static " << model->Static() << "\n";
    for (uint64_t l = 0; l < model->LinkCount(); ++l) {
      const sdf::Link* link = model->LinkByIndex(l);
      std::cout << "link " << link->Name() << " mass " << link->Inertial().MassMatrix().Mass() << "\n";
    }
    for (uint64_t j = 0; j < model->JointCount(); ++j) {
      const sdf::Joint* joint = model->JointByIndex(j);
      std::cout << "joint " << joint->Name() << " " << joint_type(joint->Type()) << "\n";
    }
    for (uint64_t f = 0; f < model->FrameCount(); ++f) {
      std::cout << "frame " << model->FrameByIndex(f)->Name() << "\n";
    }
  }
  return failed == 0 ? 0 : 1;
}
