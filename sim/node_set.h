// A set of node indices in [0, capacity), for the buckets and classes of sim/node_index.h: a
// bitmap of the nodes, a bitmap of its non-empty words and a count per 4,096 nodes. Adding or
// removing a node is O(1); the nodes come out ascending, skipping empty stretches 4,096 nodes at
// a time; the k-th smallest skips whole stretches by their counts, then at most 64 words. (Sorted vectors, which this replaces,
// move every larger index on each insert and erase: O(nodes) per bind, the largest cost at 10^4 nodes.)
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

namespace topsim {

class NodeSet {
 public:
  NodeSet() = default;
  explicit NodeSet(int capacity)
      : words_((static_cast<size_t>(capacity) + 63) / 64, 0),
        summary_((words_.size() + 63) / 64, 0),
        block_size_(summary_.size(), 0) {}

  // REQUIRES: 0 <= node < capacity; insert: node absent; erase: node present.
  void insert(int node) {
    const size_t w = word_of(node);
    words_[w] |= bit_of(node);
    summary_[w / 64] |= uint64_t{1} << (w % 64);
    ++block_size_[w / 64];
    ++size_;
  }
  void erase(int node) {
    const size_t w = word_of(node);
    words_[w] &= ~bit_of(node);
    if (words_[w] == 0) summary_[w / 64] &= ~(uint64_t{1} << (w % 64));
    --block_size_[w / 64];
    --size_;
  }
  bool contains(int node) const { return (words_[word_of(node)] & bit_of(node)) != 0; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // The smallest node at or after `from`; -1 when none.
  int next(int from) const;
  // REQUIRES: !empty().
  int front() const { return next(0); }
  // The k-th smallest node (0-based). REQUIRES: k < size().
  int nth(size_t k) const;

  class iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = int;
    using difference_type = std::ptrdiff_t;
    using pointer = const int*;
    using reference = int;
    iterator(const NodeSet* set, int node) : set_(set), node_(node) {}
    int operator*() const { return node_; }
    iterator& operator++() {
      node_ = set_->next(node_ + 1);
      return *this;
    }
    bool operator==(const iterator& o) const { return node_ == o.node_; }
    bool operator!=(const iterator& o) const { return node_ != o.node_; }

   private:
    const NodeSet* set_;
    int node_;
  };
  iterator begin() const { return {this, empty() ? -1 : front()}; }
  iterator end() const { return {this, -1}; }

 private:
  static size_t word_of(int node) { return static_cast<size_t>(node) / 64; }
  static uint64_t bit_of(int node) { return uint64_t{1} << (static_cast<unsigned>(node) % 64); }
  // The first non-empty word at or after word `w`; words_.size() when none.
  size_t next_word(size_t w) const;

  std::vector<uint64_t> words_;       // bit n % 64 of word n / 64: node n is in the set
  std::vector<uint64_t> summary_;     // bit w % 64 of word w / 64: words_[w] != 0
  std::vector<uint32_t> block_size_;  // [b]: nodes in words 64 b .. 64 b + 63
  size_t size_ = 0;
};

}  // namespace topsim
