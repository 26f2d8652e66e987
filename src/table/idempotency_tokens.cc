#include "table/idempotency_tokens.h"

#include <cstdint>
#include <string_view>
#include <type_traits>
#include <variant>

#include "common/digest.h"
#include "table/item_codec.h"

namespace stowage::table {
namespace {

// Writes a request as an unambiguous byte string: every variable-length part
// is length-prefixed and every alternative is tagged, so different requests
// never write the same bytes.
class RequestWriter {
 public:
  void tag(char t) { out_.push_back(t); }

  void text(std::string_view s) {
    std::uint64_t size = s.size();
    for (int shift = 0; shift < 64; shift += 8) {
      out_.push_back(static_cast<char>((size >> shift) & 0xff));
    }
    out_.append(s);
  }

  void item(const Item& item) { text(encode_item(item)); }
  void value(const Value& value) { item(Item{{"", value}}); }

  void condition(const Condition& condition) {
    std::visit([this](const auto& node) { write_node(node); }, condition.node);
  }

  void optional_condition(const std::optional<Condition>& condition) {
    tag(condition ? 'c' : '-');
    if (condition) this->condition(*condition);
  }

  void update(const Update& update) {
    text(std::to_string(update.actions().size()));
    for (const UpdateAction& action : update.actions()) {
      std::visit([this](const auto& a) { write_action(a); }, action);
    }
  }

  const std::string& bytes() const { return out_; }

 private:
  void write_node(const condition_node::AttributeExists& c) {
    tag('e');
    text(c.attribute);
  }
  void write_node(const condition_node::AttributeNotExists& c) {
    tag('n');
    text(c.attribute);
  }
  void write_node(const condition_node::Compare& c) {
    tag('=');
    tag(static_cast<char>(c.op));
    text(c.attribute);
    value(c.operand);
  }
  void write_node(const condition_node::Between& c) {
    tag('b');
    text(c.attribute);
    value(c.low);
    value(c.high);
  }
  void write_node(const condition_node::BeginsWith& c) {
    tag('p');
    text(c.attribute);
    value(c.prefix);
  }
  void write_node(const condition_node::Contains& c) {
    tag('i');
    text(c.attribute);
    value(c.operand);
  }
  void write_node(const condition_node::And& c) { junction('&', c.operands); }
  void write_node(const condition_node::Or& c) { junction('|', c.operands); }
  void write_node(const condition_node::Not& c) { junction('!', c.operand); }

  void junction(char t, const std::vector<Condition>& operands) {
    tag(t);
    text(std::to_string(operands.size()));
    for (const Condition& operand : operands) condition(operand);
  }

  void write_action(const update_action::Set& a) {
    tag(a.if_not_exists ? 'S' : 's');
    text(a.attribute);
    value(a.value);
  }
  void write_action(const update_action::Add& a) {
    tag('a');
    text(a.attribute);
    value(a.value);
  }
  void write_action(const update_action::Remove& a) {
    tag('r');
    text(a.attribute);
  }

  std::string out_;
};

}  // namespace

std::string transaction_fingerprint(const TransactWriteRequest& request) {
  RequestWriter writer;
  for (const TransactAction& action : request.actions) {
    std::visit(
        [&writer](const auto& a) {
          using A = std::decay_t<decltype(a)>;
          writer.text(a.table);
          if constexpr (std::is_same_v<A, PutRequest>) {
            writer.tag('P');
            writer.item(a.item);
            writer.optional_condition(a.condition);
          } else if constexpr (std::is_same_v<A, UpdateRequest>) {
            writer.tag('U');
            writer.item(a.key);
            writer.update(a.update);
            writer.optional_condition(a.condition);
          } else if constexpr (std::is_same_v<A, DeleteRequest>) {
            writer.tag('D');
            writer.item(a.key);
            writer.optional_condition(a.condition);
          } else {
            writer.tag('C');
            writer.item(a.key);
            writer.condition(a.condition);
          }
        },
        action);
  }
  return sha256(writer.bytes());
}

}  // namespace stowage::table
