#include "schema/key_scheme.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "stowage/error.h"

namespace stowage::schema {
namespace {

const KeyScheme kDefault("Stowage", "#");

// Runs `build` and returns the InvalidKey message it throws.
std::string invalid_key_message(const std::function<void()>& build) {
  try {
    build();
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::InvalidKey) << error.what();
    return error.message();
  }
  ADD_FAILURE() << "no InvalidKey thrown";
  return "";
}

std::string configuration_message(const std::string& ns, const std::string& sep) {
  try {
    KeyScheme scheme(ns, sep);
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::ConfigurationError) << error.what();
    return error.message();
  }
  ADD_FAILURE() << "no ConfigurationError for namespace \"" << ns
                << "\" and separator \"" << sep << "\"";
  return "";
}

TEST(KeyScheme, BuildsTheKeysOfEveryEntity) {
  EXPECT_EQ(kDefault.blob("b1"), (LogicalKey{"Stowage#Blob#b1", "Stowage#Blob#b1"}));
  EXPECT_EQ(kDefault.variant_record("b1", "d9"),
            (LogicalKey{"Stowage#Blob#b1", "Stowage#VariantRecord#d9"}));
  EXPECT_EQ(kDefault.attachment("Post", "42", "avatar", "a7"),
            (LogicalKey{"Stowage#Owner#Post#42", "Stowage#Attachment#avatar#a7"}));
  EXPECT_EQ(kDefault.owner_context("Post", "42"),
            (LogicalKey{"Stowage#Owner#Post#42", "Stowage#Context"}));
  EXPECT_EQ(kDefault.owner_partition("Admin::User", "7"), "Stowage#Owner#Admin::User#7");
}

TEST(KeyScheme, BuildsLedgerPartitionsWithAndWithoutSubPartition) {
  EXPECT_EQ(kDefault.ledger_partition(LedgerOwner::Account, "acc1"),
            "Stowage#Ledger#Account#acc1");
  EXPECT_EQ(kDefault.ledger_partition(LedgerOwner::Board, "b2", "Pending"),
            "Stowage#Ledger#Board#b2#Pending");
  EXPECT_EQ(kDefault.ledger_partition(LedgerOwner::Account, "acc1", "Total"),
            "Stowage#Ledger#Account#acc1#Total");
}

TEST(KeyScheme, UsesTheConfiguredNamespaceAndSeparator) {
  const KeyScheme scheme("App", "|");
  EXPECT_EQ(scheme.attachment("Post", "1", "files", "x"),
            (LogicalKey{"App|Owner|Post|1", "App|Attachment|files|x"}));
  EXPECT_EQ(scheme.attachment_name_prefix("files"), "App|Attachment|files|");
  EXPECT_EQ(scheme.compose({{"kind", "Entry"}, {"entry_id", "5"}}), "App|Entry|5");
  // "#" is an ordinary character under another separator.
  EXPECT_EQ(scheme.blob("a#b").h, "App|Blob|a#b");
}

TEST(KeyScheme, PrefixesMatchExactlyTheirOwnKeys) {
  const std::string avatar = kDefault.attachment("Post", "1", "avatar", "a1").r;
  const std::string avatars = kDefault.attachment("Post", "1", "avatars", "a2").r;
  const std::string prefix = kDefault.attachment_name_prefix("avatar");
  EXPECT_TRUE(avatar.starts_with(prefix));
  EXPECT_FALSE(avatars.starts_with(prefix));
  EXPECT_TRUE(avatar.starts_with(kDefault.attachments_prefix()));
  EXPECT_TRUE(avatars.starts_with(kDefault.attachments_prefix()));
  EXPECT_FALSE(kDefault.owner_context("Post", "1").r.starts_with(kDefault.attachments_prefix()));
  EXPECT_TRUE(kDefault.variant_record("b", "d").r.starts_with(kDefault.variant_records_prefix()));
  EXPECT_FALSE(kDefault.blob("b").r.starts_with(kDefault.variant_records_prefix()));
}

TEST(KeyScheme, RejectsAPartContainingTheSeparatorNamingPartAndValue) {
  std::string message =
      invalid_key_message([] { kDefault.attachment("Post#Evil", "1", "avatar", "a"); });
  EXPECT_NE(message.find("record_type \"Post#Evil\""), std::string::npos) << message;
  EXPECT_NE(message.find("separator \"#\""), std::string::npos) << message;

  message = invalid_key_message([] { kDefault.attachment("Post", "1#2", "avatar", "a"); });
  EXPECT_NE(message.find("record_id \"1#2\""), std::string::npos) << message;
  message = invalid_key_message([] { kDefault.attachment("Post", "1", "av#atar", "a"); });
  EXPECT_NE(message.find("name \"av#atar\""), std::string::npos) << message;
  message = invalid_key_message([] { kDefault.attachment("Post", "1", "avatar", "#"); });
  EXPECT_NE(message.find("attachment_id \"#\""), std::string::npos) << message;
  message = invalid_key_message([] { kDefault.variant_record("b", "d#1"); });
  EXPECT_NE(message.find("digest \"d#1\""), std::string::npos) << message;
  message = invalid_key_message([] { kDefault.attachment_name_prefix("a#"); });
  EXPECT_NE(message.find("name \"a#\""), std::string::npos) << message;
  message = invalid_key_message(
      [] { kDefault.ledger_partition(LedgerOwner::Board, "b", "Pending#x"); });
  EXPECT_NE(message.find("sub_partition \"Pending#x\""), std::string::npos) << message;
}

TEST(KeyScheme, RejectsBlankParts) {
  std::string message = invalid_key_message([] { kDefault.blob(""); });
  EXPECT_NE(message.find("blob_id is blank"), std::string::npos) << message;
  message = invalid_key_message([] { kDefault.owner_context(" \t", "1"); });
  EXPECT_NE(message.find("record_type is blank"), std::string::npos) << message;
  message = invalid_key_message([] { kDefault.ledger_partition(LedgerOwner::Account, ""); });
  EXPECT_NE(message.find("owner_id is blank"), std::string::npos) << message;
  message = invalid_key_message([] { kDefault.compose({{"entry_id", ""}}); });
  EXPECT_NE(message.find("entry_id is blank"), std::string::npos) << message;
}

TEST(KeyScheme, RejectsABadNamespaceOrSeparator) {
  EXPECT_NE(configuration_message("Stowage", "").find("[table] separator"), std::string::npos);
  EXPECT_NE(configuration_message("  ", "#").find("[table] namespace"), std::string::npos);
  const std::string overlap = configuration_message("My#App", "#");
  EXPECT_NE(overlap.find("\"My#App\" contains the key separator \"#\""), std::string::npos)
      << overlap;
}

TEST(KeyScheme, ItemIdFollowsTheGemForBlobsAndVariants) {
  EXPECT_EQ(kDefault.item_id(kDefault.blob("b1")), "Stowage#Blob#b1");
  EXPECT_EQ(kDefault.item_id(kDefault.variant_record("b1", "d9")),
            "Stowage#Blob#b1#VariantRecord#d9");
  EXPECT_EQ(kDefault.item_id(kDefault.owner_context("Post", "1")),
            "Stowage#Owner#Post#1#Context");
}

TEST(KeyScheme, ItemIdOfAnAttachmentDependsOnItsOwner) {
  const LogicalKey first = kDefault.attachment("Post", "1", "avatar", "same");
  const LogicalKey second = kDefault.attachment("Post", "2", "avatar", "same");
  EXPECT_EQ(kDefault.item_id(first), "Stowage#Owner#Post#1#Attachment#avatar#same");
  EXPECT_NE(kDefault.item_id(first), kDefault.item_id(second));
}

TEST(KeyScheme, ItemIdRejectsKeysOutsideTheNamespace) {
  const std::string message =
      invalid_key_message([] { kDefault.item_id(LogicalKey{"Stowage#Blob#1", "Other#x"}); });
  EXPECT_NE(message.find("does not begin with the namespace \"Stowage#\""), std::string::npos)
      << message;
  invalid_key_message([] { kDefault.item_id(LogicalKey{"Stowagex", "Stowagex"}); });
}

}  // namespace
}  // namespace stowage::schema
