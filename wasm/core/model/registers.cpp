#include "model/registers.h"

namespace isoscope {

const char* object_model_name(ObjectModel m) {
  switch (m) {
    case ObjectModel::None: return "none";
    case ObjectModel::Register: return "register";
    case ObjectModel::CasRegister: return "cas-register";
    case ObjectModel::KeyValue: return "key-value";
    case ObjectModel::MultiRegister: return "multi-register";
    case ObjectModel::Mutex: return "mutex";
  }
  return "?";
}

const char* obj_fn_name(ObjFn f) {
  switch (f) {
    case ObjFn::Read: return "read";
    case ObjFn::Write: return "write";
    case ObjFn::Cas: return "cas";
    case ObjFn::Append: return "append";
    case ObjFn::Acquire: return "acquire";
    case ObjFn::Release: return "release";
    case ObjFn::Txn: return "txn";
  }
  return "?";
}

}  // namespace isoscope
