// The sequential specifications LIN checks object histories against (model/registers.h). A
// model gives meaning to 32-bit state ids; adding an object is one small file that implements
// this interface and a line in make_model (model.cpp).
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "model/history.h"

namespace isoscope {

class ObjectSpec {
 public:
  static constexpr uint32_t kNoState = 0xFFFFFFFFu;
  virtual ~ObjectSpec() = default;
  // The state every object starts in (absent: nil, "" for key-value, free for a mutex).
  virtual uint32_t initial() = 0;
  // The state after op takes effect in state s, or kNoState when it cannot take effect there
  // (a read that would return something else, a cas whose expected value differs). An :info
  // operation that cannot take effect never did: the search may leave it out.
  virtual uint32_t step(uint32_t s, const RegOp& op) = 0;
  // Whether op changes no state, whatever the state (a read): the search need not branch on it.
  virtual bool read_only(const RegOp& op) const { return op.fn == ObjFn::Read; }
  // Called before each object's search (LIN searches object after object with one spec): may
  // forget the states met so far, to keep its tables small; state ids from before are then
  // invalid, initial()'s included.
  virtual void reset() {}
  // For explanations: "3", "nil", "\"x 0 1\"", "{x=1, y=nil}", "held".
  virtual std::string state_text(uint32_t s) const = 0;
  // For explanations: "read 3", "write 4", "cas 1 -> 2", "append \"x\"".
  virtual std::string op_text(const RegOp& op) const;

 protected:
  explicit ObjectSpec(const History& h) : h_(h) {}
  const History& h_;
};

// The model of h.registers.model; null for a transactional history.
std::unique_ptr<ObjectSpec> make_spec(const History& h);

// Each kind of object (checkers/lin/spec_*.cpp).
std::unique_ptr<ObjectSpec> make_register_spec(const History& h);  // register and cas-register
std::unique_ptr<ObjectSpec> make_kv_spec(const History& h);
std::unique_ptr<ObjectSpec> make_multi_register_spec(const History& h);
std::unique_ptr<ObjectSpec> make_mutex_spec(const History& h);

}  // namespace isoscope
